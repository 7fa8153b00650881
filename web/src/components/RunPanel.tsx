import { useState } from "react";
import { api } from "../api";
import { useStore } from "../store";

const show = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v, null, 2));

export function RunPanel() {
  const saved = useStore((s) => s.saved);
  const dirty = useStore((s) => s.dirty);
  const run = useStore((s) => s.run);
  const selected = useStore((s) => s.selected);
  const { startRun } = useStore.getState();
  const [values, setValues] = useState<Record<string, string>>({});
  const [query, setQuery] = useState("");
  if (!saved) return null;
  const wf = saved.workflow;
  const start = wf.nodes.find((n) => n.type === "start");
  const vars = (Array.isArray(start?.config.variables) ? start.config.variables : []) as Array<{ variable: string; label?: string; type?: string; required?: boolean; options?: string[] }>;
  const running = run.status === "running" || run.status === "starting";

  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    const inputs: Record<string, unknown> = {};
    for (const v of vars) {
      const raw = values[v.variable];
      if (raw === undefined || raw === "") continue;
      inputs[v.variable] = v.type === "number" ? Number(raw) : raw;
    }
    void startRun(inputs, wf.mode === "advanced-chat" ? query : undefined);
  };

  const nodeTrace = run.trace.filter((t) => !selected || t.nodeId === selected);
  return (
    <div className="run-panel" data-testid="run-panel">
      <form onSubmit={submit}>
        {wf.mode === "advanced-chat" && (
          <div className="field">
            <label htmlFor="run-query">query</label>
            <textarea id="run-query" data-testid="run-query" value={query} onChange={(e) => setQuery(e.target.value)} />
          </div>
        )}
        {vars.map((v) => (
          <div className="field" key={v.variable}>
            <label htmlFor={`input-${v.variable}`}>
              {v.label || v.variable}
              {v.required ? " *" : ""}
            </label>
            {v.type === "select" && v.options?.length ? (
              <select id={`input-${v.variable}`} data-testid={`input-${v.variable}`} value={values[v.variable] ?? ""} onChange={(e) => setValues({ ...values, [v.variable]: e.target.value })}>
                <option value="" />
                {v.options.map((o) => (
                  <option key={o}>{o}</option>
                ))}
              </select>
            ) : v.type === "paragraph" ? (
              <textarea id={`input-${v.variable}`} data-testid={`input-${v.variable}`} value={values[v.variable] ?? ""} onChange={(e) => setValues({ ...values, [v.variable]: e.target.value })} />
            ) : (
              <input
                id={`input-${v.variable}`}
                data-testid={`input-${v.variable}`}
                type={v.type === "number" ? "number" : "text"}
                value={values[v.variable] ?? ""}
                onChange={(e) => setValues({ ...values, [v.variable]: e.target.value })}
              />
            )}
          </div>
        ))}
        {dirty && <p className="warn-text">Unsaved edits: the run uses saved version {saved.version}.</p>}
        <button type="submit" data-testid="run-button" disabled={running}>
          {running ? "Running…" : `Run version ${saved.version}`}
        </button>
        {running && run.runId && (
          <button type="button" data-testid="cancel-run" onClick={() => void api(`/api/runs/${run.runId}/cancel`, { method: "POST" }).catch(() => {})}>
            Stop
          </button>
        )}
      </form>
      {run.status && (
        <div className="run-result" data-testid="run-result" data-status={run.status}>
          <h4>
            Run <code>{run.runId ?? ""}</code>: <span className={`run-status ${run.status}`}>{run.status}</span>
          </h4>
          {run.error && (
            <div className="diag error">
              {run.error.code}
              {run.error.nodeId ? ` at ${run.error.nodeId}` : ""}: {run.error.message}
            </div>
          )}
          {run.outputs && (
            <div className="outputs" data-testid="run-outputs">
              {Object.entries(run.outputs).map(([k, v]) => (
                <div key={k} className="output">
                  <b>{k}</b>
                  <pre>{show(v)}</pre>
                </div>
              ))}
            </div>
          )}
          <h4>Events</h4>
          <ol className="events" data-testid="run-events">
            {run.events.map((e, i) => (
              <li key={i}>
                {e.type}
                {e.nodeId ? ` ${e.nodeId}` : ""}
                {e.status ? ` → ${e.status}` : ""}
              </li>
            ))}
          </ol>
          {run.trace.length > 0 && (
            <>
              <h4>Trace{selected ? ` of ${selected}` : ""}</h4>
              {nodeTrace.map((t) => (
                <details key={`${t.key}-${t.attempt}`} className="trace" data-testid={`trace-${t.nodeId}`}>
                  <summary>
                    {t.key} [{t.nodeType}] {t.status} · {t.endedAt - t.startedAt} ms{t.port && t.port !== "source" ? ` → ${t.port}` : ""}
                  </summary>
                  <div>inputs</div>
                  <pre>{show(t.inputs)}</pre>
                  {t.outputs && (
                    <>
                      <div>outputs</div>
                      <pre>{show(t.outputs)}</pre>
                    </>
                  )}
                  {t.error && <div className="diag error">{t.error.code}: {t.error.message}</div>}
                </details>
              ))}
            </>
          )}
        </div>
      )}
    </div>
  );
}
