import type { Workflow } from "../ir/workflow.js";

/** The trigger node types, as Dify names them. */
export const TRIGGER_NODE_TYPES = ["trigger-webhook", "trigger-schedule", "trigger-plugin"] as const;
export type TriggerNodeType = (typeof TRIGGER_NODE_TYPES)[number];

export const isTriggerType = (t: string): t is TriggerNodeType => (TRIGGER_NODE_TYPES as readonly string[]).includes(t);

/** The store's trigger type of a node type. */
export function triggerKind(t: TriggerNodeType): "webhook" | "schedule" | "plugin" {
  return t === "trigger-webhook" ? "webhook" : t === "trigger-schedule" ? "schedule" : "plugin";
}

/** The trigger nodes of a workflow (top level only: triggers cannot be nested). */
export function triggerNodes(wf: Workflow): Array<{ nodeId: string; type: TriggerNodeType }> {
  return wf.nodes
    .filter((n) => !n.parentId && isTriggerType(n.type))
    .map((n) => ({ nodeId: n.id, type: n.type as TriggerNodeType }));
}

/**
 * The workflow a run started by one trigger runs: Dify roots the graph at the trigger that fired, so the
 * other entries (and their edges) are not part of the run; nodes only they lead to have no incoming edge left
 * and are skipped by the engine. The result is stored as the run's workflow, so a resume runs the same graph.
 */
export function workflowFromEntry(wf: Workflow, entryId: string): Workflow {
  const others = new Set(
    wf.nodes
      .filter((n) => n.id !== entryId && !n.parentId && (isTriggerType(n.type) || n.type === "start"))
      .map((n) => n.id),
  );
  if (others.size === 0) return wf;
  return {
    ...wf,
    nodes: wf.nodes.filter((n) => !others.has(n.id)),
    edges: wf.edges.filter((e) => !others.has(e.source) && !others.has(e.target)),
  };
}
