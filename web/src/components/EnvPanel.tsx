import { useCallback, useEffect, useState } from "react";
import { ApiFailure, api } from "../api";
import { errText, useStore } from "../store";
import { ErrorBox } from "./ErrorBox";

type EnvType = "string" | "number" | "secret";
/** GET /api/apps/:id/env: a secret's value is never sent back, only whether it is set. */
interface EnvVar {
  name: string;
  type: EnvType;
  value: string | number | null;
  set: boolean;
}

type Loaded =
  | { kind: "loading" }
  | { kind: "ok"; vars: EnvVar[] }
  | { kind: "absent"; why: string }
  | { kind: "error"; why: string };

/** The value to send for `type`: a number must read as one (said, never guessed). */
function typed(type: EnvType, raw: string): string | number {
  if (type !== "number") return raw;
  const n = Number(raw);
  if (raw.trim() === "" || !Number.isFinite(n))
    throw new Error(`a number variable takes a number, not ${JSON.stringify(raw)}`);
  return n;
}

function EnvRow({
  v,
  onSave,
  onDelete,
}: {
  v: EnvVar;
  onSave: (type: EnvType, raw: string) => Promise<void>;
  onDelete: () => Promise<void>;
}) {
  const [raw, setRaw] = useState(v.type === "secret" ? "" : String(v.value ?? ""));
  return (
    <tr data-testid={`env-row-${v.name}`}>
      <td>
        <code>{v.name}</code>
      </td>
      <td className="muted small">{v.type}</td>
      <td>
        {v.type === "secret" ? (
          <input
            type="password"
            autoComplete="new-password"
            placeholder={v.set ? "set (type to replace)" : "not set"}
            value={raw}
            onChange={(e) => setRaw(e.target.value)}
            data-testid={`env-value-${v.name}`}
          />
        ) : (
          <input value={raw} onChange={(e) => setRaw(e.target.value)} data-testid={`env-value-${v.name}`} />
        )}
        {v.type === "secret" && (
          <span className={`small ${v.set ? "muted" : "warn-text"}`} data-testid={`env-set-${v.name}`}>
            {v.set ? " set" : " not set"}
          </span>
        )}
      </td>
      <td>
        <button
          type="button"
          data-testid={`env-save-${v.name}`}
          disabled={v.type === "secret" && raw === ""}
          onClick={() => void onSave(v.type, raw).then(() => v.type === "secret" && setRaw(""))}
        >
          Save
        </button>
        <button type="button" data-testid={`env-delete-${v.name}`} onClick={() => void onDelete()}>
          Delete
        </button>
      </td>
    </tr>
  );
}

/** The app's environment variables and secrets (secrets are write-only here: set, replaced or deleted). */
export function EnvPanel() {
  const app = useStore((s) => s.app)!;
  const [loaded, setLoaded] = useState<Loaded>({ kind: "loading" });
  const [error, setError] = useState<string>();
  const [name, setName] = useState("");
  const [type, setType] = useState<EnvType>("string");
  const [value, setValue] = useState("");
  const base = `/api/apps/${encodeURIComponent(app.id)}/env`;

  const load = useCallback(async () => {
    try {
      const r = await api<{ variables: EnvVar[] }>(base);
      setLoaded({ kind: "ok", vars: r.variables });
    } catch (e) {
      // A server without the API answers the route itself unknown; anything else is an error of this app.
      if (e instanceof ApiFailure && e.status === 404 && e.code === "route.not_found")
        setLoaded({
          kind: "absent",
          why: `this server has no environment-variable API (${e.message}); update the server to set variables here`,
        });
      else setLoaded({ kind: "error", why: errText(e) });
    }
  }, [base]);
  useEffect(() => void load(), [load]);

  const put = async (n: string, t: EnvType, raw: string) => {
    setError(undefined);
    try {
      await api(`${base}/${encodeURIComponent(n)}`, { method: "PUT", json: { type: t, value: typed(t, raw) } });
      await load();
    } catch (e) {
      setError(`${n} not saved: ${errText(e)}`);
      throw e;
    }
  };
  const del = async (n: string) => {
    setError(undefined);
    try {
      await api(`${base}/${encodeURIComponent(n)}`, { method: "DELETE" });
      await load();
    } catch (e) {
      setError(`${n} not deleted: ${errText(e)}`);
    }
  };

  if (loaded.kind === "loading") return <p className="muted">Loading…</p>;
  if (loaded.kind === "absent" || loaded.kind === "error")
    return (
      <div className="diag error boxed" data-testid="env-unavailable" data-kind={loaded.kind}>
        {loaded.why}
      </div>
    );
  return (
    <div className="env-panel" data-testid="env-panel">
      <p className="muted small">
        Nodes read these as {"{{#env.NAME#}}"}. Secret values are stored encrypted and never shown again.
      </p>
      <ErrorBox error={error} testId="env-error" />
      <table className="env-vars">
        <tbody>
          {loaded.vars.map((v) => (
            <EnvRow
              key={`${v.name}:${v.type}:${String(v.value)}:${v.set}`}
              v={v}
              onSave={(t, raw) => put(v.name, t, raw).catch(() => {})}
              onDelete={() => del(v.name)}
            />
          ))}
          {loaded.vars.length === 0 && (
            <tr>
              <td className="muted">No variables yet.</td>
            </tr>
          )}
        </tbody>
      </table>
      <form
        className="env-add"
        onSubmit={(e) => {
          e.preventDefault();
          void put(name.trim(), type, value).then(
            () => {
              setName("");
              setValue("");
            },
            () => {},
          );
        }}
      >
        <input placeholder="NAME" value={name} onChange={(e) => setName(e.target.value)} data-testid="env-new-name" />
        <select value={type} onChange={(e) => setType(e.target.value as EnvType)} data-testid="env-new-type">
          <option value="string">string</option>
          <option value="number">number</option>
          <option value="secret">secret</option>
        </select>
        <input
          type={type === "secret" ? "password" : "text"}
          autoComplete="new-password"
          placeholder="value"
          value={value}
          onChange={(e) => setValue(e.target.value)}
          data-testid="env-new-value"
        />
        <button type="submit" data-testid="env-add" disabled={!name.trim()}>
          Set
        </button>
      </form>
    </div>
  );
}
