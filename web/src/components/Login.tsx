import { useEffect, useState } from "react";
import { useStore } from "../store";
import { CredentialFields, useCredentials } from "./CredentialFields";

/** Sign in with an account (email and password), or paste an API key as before accounts existed. */
export function Login() {
  const authError = useStore((s) => s.authError);
  const credentials = useCredentials();
  const { email, password } = credentials;
  const [key, setKey] = useState("");
  const [busy, setBusy] = useState(false);
  const sso = useSso();
  return (
    <div className="login">
      <h1>Weft</h1>
      {sso.refusal && (
        <div className="diag error" data-testid="sso-error" role="alert">
          {sso.refusal}
        </div>
      )}
      {sso.start && (
        <a className="button primary" data-testid="sso-login" href={sso.start}>
          {sso.label}
        </a>
      )}
      <form
        data-testid="password-login"
        onSubmit={(e) => {
          e.preventDefault();
          setBusy(true);
          void useStore
            .getState()
            .signIn(email, password)
            .finally(() => setBusy(false));
        }}
      >
        <CredentialFields testId="login" credentials={credentials} fresh={false} passwordPlaceholder="password" />
        <button type="submit" className="primary" data-testid="login-submit" disabled={busy || !email || !password}>
          {busy ? "Signing in…" : "Sign in"}
        </button>
      </form>
      {authError && (
        <div className="diag error" data-testid="login-error" role="alert">
          {authError}
        </div>
      )}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void useStore.getState().login(key);
        }}
      >
        <p className="muted">
          Or paste an API key (create one with <code>weft keys create</code>).
        </p>
        <input
          data-testid="api-key"
          type="password"
          value={key}
          onChange={(e) => setKey(e.target.value)}
          placeholder="weft_…"
        />
        <button type="submit" data-testid="login">
          Use key
        </button>
      </form>
    </div>
  );
}

/**
 * Whether the server offers SSO (GET /api/auth/options), and why the last SSO sign-in was refused: the server's
 * callback sends the browser back here with `sso_error` and `sso_message`, taken out of the address once read.
 */
function useSso(): { start?: string; label?: string; refusal?: string } {
  const [sso, setSso] = useState<{ start?: string; label?: string }>({});
  const [refusal] = useState(() => new URLSearchParams(window.location.search).get("sso_message") ?? undefined);
  useEffect(() => {
    if (refusal) window.history.replaceState(null, "", window.location.pathname + window.location.hash);
    let live = true;
    fetch("/api/auth/options")
      .then((r) => (r.ok ? (r.json() as Promise<{ sso: { label: string; start: string } | null }>) : { sso: null }))
      .then((o) => live && o.sso && setSso(o.sso))
      .catch(() => {});
    return () => {
      live = false;
    };
  }, [refusal]);
  return { ...sso, refusal };
}
