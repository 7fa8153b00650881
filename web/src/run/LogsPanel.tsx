import { useCallback, useEffect, useState } from "react";
import { api } from "../api";
import { ErrorBox } from "../components/ErrorBox";
import { StudioLink } from "../components/StudioLink";
import { routePath } from "../route";
import { errText, useStore } from "../store";
import { SaveAsTest } from "../tests/SaveAsTest";
import type { RunLogEntry } from "../types";
import { type Filters, none, query } from "./logQuery";

const STATUSES = ["succeeded", "partial-succeeded", "failed", "cancelled", "paused", "running", "interrupted"];
const SOURCES = ["studio", "api", "v1", "mcp", "queue", "trigger", "cli", "tests"];
const SINCE: Array<[string, string]> = [
  ["", "any time"],
  ["1h", "last hour"],
  ["24h", "last 24 hours"],
  ["7d", "last 7 days"],
  ["30d", "last 30 days"],
];

const brief = (v: unknown) => {
  const s = v === undefined ? "" : JSON.stringify(v);
  return s.length > 80 ? `${s.slice(0, 80)}…` : s;
};

/** The app's run log: filters, full-text search, cursor paging; a row opens the run at its deep link. */
export function LogsPanel() {
  const app = useStore((s) => s.app)!;
  const [f, setF] = useState<Filters>(none);
  const [search, setSearch] = useState("");
  const [runs, setRuns] = useState<RunLogEntry[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  const load = useCallback(
    async (cursor?: string) => {
      setBusy(true);
      setError(undefined);
      try {
        const r = await api<{ runs: RunLogEntry[]; next: string | null }>(
          `/api/apps/${app.id}/runs?${query(f, cursor)}`,
        );
        setRuns((old) => (cursor ? [...old, ...r.runs] : r.runs));
        setNext(r.next);
      } catch (e) {
        setError(errText(e));
        if (!cursor) setRuns([]);
      } finally {
        setBusy(false);
      }
    },
    [app.id, f],
  );
  useEffect(() => void load(), [load]);

  const pick = (k: keyof Filters) => (e: React.ChangeEvent<HTMLInputElement | HTMLSelectElement>) =>
    setF((x) => ({ ...x, [k]: e.target.value }));
  return (
    <div className="logs-panel" data-testid="logs-panel">
      <form
        className="log-filters"
        onSubmit={(e) => {
          e.preventDefault();
          setF((x) => ({ ...x, search }));
        }}
      >
        <select value={f.status} onChange={pick("status")} data-testid="log-status" aria-label="status">
          <option value="">any status</option>
          {STATUSES.map((s) => (
            <option key={s}>{s}</option>
          ))}
        </select>
        <select value={f.source} onChange={pick("source")} data-testid="log-source" aria-label="source">
          <option value="">any source</option>
          {SOURCES.map((s) => (
            <option key={s}>{s}</option>
          ))}
        </select>
        <input
          type="number"
          min={1}
          placeholder="version"
          value={f.version}
          onChange={pick("version")}
          data-testid="log-version"
          aria-label="version"
        />
        <select value={f.since} onChange={pick("since")} data-testid="log-since" aria-label="since">
          {SINCE.map(([v, label]) => (
            <option key={v} value={v}>
              {label}
            </option>
          ))}
        </select>
        <label className="small">
          until <input type="datetime-local" value={f.until} onChange={pick("until")} data-testid="log-until" />
        </label>
        <input
          placeholder="search inputs and outputs"
          value={search}
          onChange={(e) => setSearch(e.target.value)}
          data-testid="log-search"
        />
        <button type="submit">Search</button>
      </form>
      <ErrorBox error={error} testId="log-error" />
      <table className="log-rows">
        <tbody>
          {runs.map((r) => {
            const path = routePath({ appId: app.id, runId: r.id });
            return (
              <tr key={r.id} data-testid="log-row" data-run-id={r.id} data-status={r.status}>
                <td>
                  <span className={`pill st-${r.status}`}>{r.status}</span>
                </td>
                <td>
                  <StudioLink path={path} data-testid="log-open">
                    {new Date(r.createdAt).toLocaleString()}
                  </StudioLink>
                </td>
                <td className="muted small">
                  {r.source ?? "?"} · {r.draft ? `draft of v${r.version ?? "?"}` : r.version ? `v${r.version}` : "—"}
                </td>
                <td className="muted small log-io">
                  {brief(r.inputs)} → {r.error ? r.error.code : brief(r.outputs)}
                </td>
                <td>
                  {(r.status === "succeeded" || r.status === "partial-succeeded") && (
                    <SaveAsTest runId={r.id} compact />
                  )}
                </td>
              </tr>
            );
          })}
          {runs.length === 0 && !busy && !error && (
            <tr>
              <td className="muted">No runs match.</td>
            </tr>
          )}
        </tbody>
      </table>
      {next && (
        <button type="button" data-testid="log-more" disabled={busy} onClick={() => void load(next)}>
          More
        </button>
      )}
    </div>
  );
}
