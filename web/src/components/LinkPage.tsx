import { useEffect, useState } from "react";
import { ApiFailure } from "../api";
import { errText, useStore } from "../store";
import { CredentialFields, useCredentials } from "./CredentialFields";

interface LinkInfo {
  purpose: "invite" | "setup" | "signin";
  workspace?: { id: string; name: string };
  role: string;
  expiresAt: number;
}

/** The token of a `?link=` address (an invitation, the first-run setup link, the sample's sign-in link). */
export const linkToken = (): string | undefined => new URLSearchParams(window.location.search).get("link") ?? undefined;

/** Out of the address once used or refused: a reload must not try a single-use link again. */
const forgetLink = () => window.history.replaceState(null, "", window.location.pathname + window.location.hash);

/**
 * What a link opens: an invitation or the setup link asks for an email and a password (a new account, or the
 * existing one's password) and lands in the link's workspace with its role; a sign-in link signs in at once.
 */
export function LinkPage({ token, onDone }: { token: string; onDone: () => void }) {
  const [info, setInfo] = useState<LinkInfo>();
  const [refusal, setRefusal] = useState<string>();
  const credentials = useCredentials();
  const { email, password } = credentials;
  const [busy, setBusy] = useState(false);

  const accept = async (account?: { email: string; password: string }) => {
    setBusy(true);
    setRefusal(undefined);
    try {
      await useStore.getState().acceptLink(token, account);
      forgetLink();
      onDone();
    } catch (e) {
      setRefusal(e instanceof ApiFailure ? e.message : errText(e));
    } finally {
      setBusy(false);
    }
  };

  // biome-ignore lint/correctness/useExhaustiveDependencies: the link is read once per token; accept is a fresh closure each render
  useEffect(() => {
    let live = true;
    fetch(`/api/invites/${encodeURIComponent(token)}`)
      .then(async (r) => {
        const body = (await r.json().catch(() => ({}))) as LinkInfo & { error?: { message?: string } };
        if (!live) return;
        if (!r.ok) return setRefusal(body.error?.message ?? `this link cannot be used (HTTP ${r.status})`);
        setInfo(body);
        if (body.purpose === "signin") void accept();
      })
      .catch((e) => live && setRefusal(errText(e)));
    return () => {
      live = false;
    };
    // Read once per token: `accept` is a fresh closure each render, not a reason to look the link up again.
  }, [token]);

  const where = info?.workspace?.name ?? info?.workspace?.id ?? "the workspace";
  return (
    <div className="login" data-testid="link-page">
      <h1>Weft</h1>
      {info && info.purpose !== "signin" && (
        <>
          <p data-testid="link-what">
            {info.purpose === "setup"
              ? "Set up this server: create its first owner account"
              : `You are invited to ${where} as ${info.role}`}
            .
          </p>
          <form
            data-testid="link-form"
            onSubmit={(e) => {
              e.preventDefault();
              void accept({ email, password });
            }}
          >
            <CredentialFields
              testId="link"
              credentials={credentials}
              fresh
              passwordPlaceholder="password (8 characters or more)"
            />
            <button type="submit" className="primary" data-testid="link-accept" disabled={busy || !email || !password}>
              {busy ? "Joining…" : "Create account or sign in"}
            </button>
          </form>
          <p className="muted">Already have an account here? Its email and password add {where} to it.</p>
        </>
      )}
      {info?.purpose === "signin" && !refusal && <p className="muted">Signing in…</p>}
      {!info && !refusal && <p className="muted">Opening the link…</p>}
      {refusal && (
        <div className="diag error" data-testid="link-error" role="alert">
          {refusal}
        </div>
      )}
      <button
        type="button"
        className="link-btn"
        data-testid="link-cancel"
        onClick={() => {
          forgetLink();
          onDone();
        }}
      >
        Go to the sign-in instead
      </button>
    </div>
  );
}
