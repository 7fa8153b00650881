import { ChevronRight, Clock } from "lucide-react";
import { useState } from "react";
import { TypeIcon } from "../canvas/nodeLook";
import { portLabel } from "../canvas/summary";
import { humanize, nodeTitle, selectorLabel } from "../labels";
import { useStore } from "../store";
import type { AttemptRecord, Workflow } from "../types";

export const show = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v, null, 2));
/** Inputs are keyed by selector (`node.var`); people know the node by its title. */
function namedInputs(wf: Workflow | undefined, inputs: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(inputs).map(([k, v]) => [k.includes(".") ? selectorLabel(wf, k.split(".")) : k, v]),
  );
}
const ms = (n: number) => (n < 1000 ? `${n} ms` : `${(n / 1000).toFixed(2)} s`);

function Attempt({ t, wf, n }: { t: AttemptRecord; wf?: Workflow; n: number }) {
  const [open, setOpen] = useState(false);
  const types = useStore((s) => s.nodeTypes);
  const title = t.title || nodeTitle(wf, t.nodeId);
  const category = types.find((x) => x.type === t.nodeType)?.category ?? "";
  return (
    <div className={`trace-row ${open ? "open" : ""} st-${t.status}`} data-testid={`trace-${t.nodeId}`}>
      <button type="button" className="trace-head" onClick={() => setOpen(!open)}>
        <span className="trace-n">{n}</span>
        <ChevronRight size={14} className="trace-caret" />
        <TypeIcon type={t.nodeType} category={category} size={12} />
        <span className="trace-title">
          {title}
          {t.key.includes("/") ? <span className="muted small"> · {t.key.split("/").slice(1).join("/")}</span> : null}
          {t.attempt > 1 ? <span className="muted small"> · attempt {t.attempt}</span> : null}
        </span>
        <span className={`pill st-${t.status}`}>{t.status}</span>
        <span className="trace-time" title="duration">
          <Clock size={11} /> {ms(t.endedAt - t.startedAt)}
        </span>
        {t.usage && (
          <span
            className="trace-tokens"
            title={`${t.usage.promptTokens} prompt + ${t.usage.completionTokens} completion tokens`}
            data-testid="trace-tokens"
          >
            {t.usage.totalTokens} tokens
          </span>
        )}
      </button>
      {open && (
        <div className="trace-body">
          {t.port && t.port !== "source" && (
            <div className="small">
              branch taken: <b data-testid="trace-branch">{branchName(wf, t.nodeId, t.port)}</b>
            </div>
          )}
          {t.error && <div className="diag error">{humanize(wf, `${t.error.code}: ${t.error.message}`)}</div>}
          <div className="trace-label">Inputs</div>
          <pre data-testid="trace-inputs">{show(namedInputs(wf, t.inputs ?? {}))}</pre>
          {t.outputs && (
            <>
              <div className="trace-label">Outputs</div>
              <pre data-testid="trace-outputs">{show(t.outputs)}</pre>
            </>
          )}
          {t.meta && Object.keys(t.meta).length > 0 && (
            <details>
              <summary className="trace-label">Details</summary>
              <pre>{show(t.meta)}</pre>
            </details>
          )}
        </div>
      )}
    </div>
  );
}

/** Every node attempt of a run in start order: title, status, time and tokens; a click shows its data. */
export function TraceView({ trace, wf, only }: { trace: AttemptRecord[]; wf?: Workflow; only?: string }) {
  const rows = [...trace].sort((a, b) => a.startedAt - b.startedAt).filter((t) => !only || t.nodeId === only);
  const tokens = trace.reduce((s, t) => s + (t.usage?.totalTokens ?? 0), 0);
  const span = trace.length ? Math.max(...trace.map((t) => t.endedAt)) - Math.min(...trace.map((t) => t.startedAt)) : 0;
  return (
    <div className="trace-view" data-testid="trace-view">
      <div className="trace-summary muted small">
        {trace.length} step(s) · {ms(span)} · {tokens} tokens{only ? ` · showing ${nodeTitle(wf, only)} only` : ""}
      </div>
      {rows.map((t, i) => (
        <Attempt key={`${t.key}-${t.attempt}`} t={t} wf={wf} n={i + 1} />
      ))}
    </div>
  );
}

/** The branch a node took as its card shows it (IF …, ELIF …, a class name), not the port id (a UUID in Dify files). */
function branchName(wf: Workflow | undefined, nodeId: string, port: string): string {
  const node = wf?.nodes.find((x) => x.id === nodeId);
  return (node && portLabel(wf, node, port)) || port;
}
