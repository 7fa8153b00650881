import { Handle, type NodeProps, Position } from "@xyflow/react";
import { memo } from "react";
import type { NodeStatus } from "../store";
import type { Diagnostic, WfNode } from "../types";

export interface CardData extends Record<string, unknown> {
  node: WfNode;
  ports: string[];
  diagnostics: Diagnostic[];
  status?: NodeStatus;
  category: string;
  label: string;
  container: boolean;
  entry: boolean;
}

const portLabel = (p: string, node: WfNode) => {
  if (p === "source") return "";
  if (node.type === "if-else" && p === "false") return "ELSE";
  if (node.type === "if-else") return p === "true" ? "IF" : `CASE ${p.slice(0, 6)}`;
  return p;
};

function summary(node: WfNode): string {
  const c = node.config;
  if (node.type === "start" && Array.isArray(c.variables)) return `inputs: ${c.variables.map((v: any) => v?.variable).join(", ") || "none"}`;
  if (node.type === "end" && Array.isArray(c.outputs)) return `outputs: ${c.outputs.map((v: any) => v?.variable).join(", ") || "none"}`;
  if (node.type === "llm" && c.model && typeof c.model === "object") return String((c.model as any).name ?? "");
  if (node.type === "code") return String(c.code_language ?? "");
  if (node.type === "template-transform") return String(c.template ?? "").slice(0, 40);
  if (node.type === "answer") return String(c.answer ?? "").slice(0, 40);
  return "";
}

/** A node on the canvas: type colour, title, a summary line, its output ports, and its state (diagnostics, run status). */
export const NodeCard = memo(function NodeCard({ data, selected }: NodeProps) {
  const d = data as CardData;
  const errors = d.diagnostics.filter((x) => x.severity === "error");
  const warnings = d.diagnostics.filter((x) => x.severity === "warning");
  const cls = ["wf-node", `cat-${d.category}`, d.container ? "wf-container" : "", selected ? "selected" : "", errors.length ? "has-error" : "", d.status ? `st-${d.status}` : ""]
    .filter(Boolean)
    .join(" ");
  const title = d.diagnostics.map((x) => `${x.severity}: ${x.message}`).join("\n");
  return (
    <div className={cls} data-node-id={d.node.id} data-node-type={d.node.type} data-status={d.status ?? ""} title={title}>
      {!d.entry && <Handle type="target" position={Position.Left} id="target" className="wf-handle" />}
      <div className="wf-node-head">
        <span className="wf-type">{d.label}</span>
        {d.status && <span className={`wf-status st-${d.status}`}>{d.status}</span>}
        {errors.length > 0 && <span className="wf-badge err" data-testid="diag-badge">{errors.length}</span>}
        {warnings.length > 0 && <span className="wf-badge warn">{warnings.length}</span>}
      </div>
      <div className="wf-title">{d.node.title || d.node.id}</div>
      {!d.container && <div className="wf-summary">{summary(d.node)}</div>}
      <div className="wf-ports">
        {d.ports.map((p, i) => (
          <div className="wf-port" key={p} style={{ top: 40 + i * 20 }}>
            <span>{portLabel(p, d.node)}</span>
            <Handle type="source" position={Position.Right} id={p} className="wf-handle" style={{ top: 8 }} />
          </div>
        ))}
      </div>
    </div>
  );
});
