import { Handle, type NodeProps, Position } from "@xyflow/react";
import { CircleAlert, CircleCheck, CircleMinus, CirclePause, CircleX, LoaderCircle, TriangleAlert } from "lucide-react";
import { memo } from "react";
import { MARK_LABELS } from "../review/view";
import type { Highlight, NodeStatus } from "../store";
import type { Diagnostic, WfNode, Workflow } from "../types";
import { HEAD_HEIGHT, isContainerStartType, PORT_ROW, portRows } from "./layout";
import { TypeIcon } from "./nodeLook";
import { PortAddButton } from "./PortInsert";
import { portLabel, summary } from "./summary";

export interface CardData extends Record<string, unknown> {
  node: WfNode;
  workflow: Workflow;
  ports: string[];
  diagnostics: Diagnostic[];
  status?: NodeStatus;
  highlight?: Highlight;
  category: string;
  label: string;
  container: boolean;
  entry: boolean;
}

/** The problems of a node, drawn under its card: the first message, and how many more there are. */
function DiagStrip({ diagnostics }: { diagnostics: Diagnostic[] }) {
  const errors = diagnostics.filter((x) => x.severity === "error");
  const warnings = diagnostics.filter((x) => x.severity === "warning");
  const first = errors[0] ?? warnings[0];
  if (!first) return null;
  const more = errors.length + warnings.length - 1;
  const Icon = errors.length ? CircleAlert : TriangleAlert;
  return (
    <div
      className={`wf-diag ${errors.length ? "error" : "warning"}`}
      data-testid={errors.length ? "node-error" : "node-warning"}
    >
      <Icon size={13} />
      <span className="wf-diag-text">{first.message}</span>
      {more > 0 && <span className="wf-diag-more">+{more}</span>}
    </div>
  );
}

const STATUS_ICONS = {
  running: LoaderCircle,
  succeeded: CircleCheck,
  failed: CircleX,
  exception: CircleX,
  skipped: CircleMinus,
  paused: CirclePause,
};

/** Run status as an icon, so the title keeps its room. */
function StatusIcon({ status }: { status: NodeStatus }) {
  const Icon = STATUS_ICONS[status] ?? CircleMinus;
  return (
    <span className={`wf-status st-${status}`} title={status}>
      <Icon size={15} />
    </span>
  );
}

/** A node on the canvas: type icon, title, a one-line summary or its labelled ports, problems, run status. */
export const NodeCard = memo(function NodeCard({ data, selected }: NodeProps) {
  const d = data as CardData;
  const errors = d.diagnostics.filter((x) => x.severity === "error");
  const warnings = d.diagnostics.filter((x) => x.severity === "warning");
  const rows = !d.container && portRows(d.ports);
  const cls = [
    "wf-node",
    isContainerStartType(d.node.type) ? "wf-start-card" : "",
    d.container ? "wf-container" : "",
    selected ? "selected" : "",
    errors.length ? "has-error" : warnings.length ? "has-warning" : "",
    d.status ? `st-${d.status}` : "",
    d.highlight ? `hl-${d.highlight}` : "",
  ]
    .filter(Boolean)
    .join(" ");
  const line = d.container || rows ? "" : summary(d.workflow, d.node);
  return (
    <div
      className={cls}
      data-node-id={d.node.id}
      data-node-type={d.node.type}
      data-parent-id={d.node.parentId ?? ""}
      data-status={d.status ?? ""}
      data-mark={d.highlight ?? ""}
      title={[d.node.title || d.label, ...d.diagnostics.map((x) => `${x.severity}: ${x.message}`)].join("\n")}
    >
      {!d.entry && (
        <Handle
          type="target"
          position={Position.Left}
          id="target"
          className="wf-handle"
          style={{ top: HEAD_HEIGHT / 2 }}
        />
      )}
      <div className="wf-node-head">
        <TypeIcon type={d.node.type} category={d.category} size={15} />
        <span className="wf-title">{d.node.title || (isContainerStartType(d.node.type) ? "Start" : d.label)}</span>
        {d.status && <StatusIcon status={d.status} />}
        {d.highlight && (
          <span className={`wf-mark mk-${d.highlight}`} data-testid="node-mark">
            {MARK_LABELS[d.highlight]}
          </span>
        )}
        {errors.length > 0 && (
          <span className="wf-badge err" data-testid="diag-badge">
            {errors.length}
          </span>
        )}
        {warnings.length > 0 && (
          <span className="wf-badge warn" data-testid="warn-badge">
            {warnings.length}
          </span>
        )}
      </div>
      {line && (
        <div className="wf-summary" data-testid="node-summary">
          {line}
        </div>
      )}
      {d.container && <div className="wf-container-label">{summary(d.workflow, d.node)}</div>}
      {rows
        ? d.ports.map((p, i) => (
            <div className="wf-port" key={p} style={{ top: HEAD_HEIGHT + i * PORT_ROW }} data-port={p}>
              <span className="wf-port-label">{portLabel(d.workflow, d.node, p)}</span>
              <Handle
                type="source"
                position={Position.Right}
                id={p}
                className="wf-handle"
                style={{ top: PORT_ROW / 2 }}
              />
              <PortAddButton nodeId={d.node.id} port={p} top={PORT_ROW / 2} />
            </div>
          ))
        : d.ports.length > 0 && (
            <>
              <Handle
                type="source"
                position={Position.Right}
                id={d.ports[0]!}
                className="wf-handle"
                style={{ top: HEAD_HEIGHT / 2 }}
              />
              <PortAddButton nodeId={d.node.id} port={d.ports[0]!} top={HEAD_HEIGHT / 2} />
            </>
          )}
      <DiagStrip diagnostics={d.diagnostics} />
    </div>
  );
});
