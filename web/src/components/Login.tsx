import { useState } from "react";
import { useStore } from "../store";

export function Login() {
  const authError = useStore((s) => s.authError);
  const [key, setKey] = useState("");
  return (
    <form
      className="login"
      onSubmit={(e) => {
        e.preventDefault();
        void useStore.getState().login(key);
      }}
    >
      <h1>Weft</h1>
      <p>Paste an API key (create one with <code>weft keys create</code>).</p>
      <input data-testid="api-key" type="password" value={key} onChange={(e) => setKey(e.target.value)} placeholder="weft_…" autoFocus />
      <button type="submit" data-testid="login">
        Sign in
      </button>
      {authError && <div className="diag error">{authError}</div>}
    </form>
  );
}
