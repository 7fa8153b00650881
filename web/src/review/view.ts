/**
 * A proposal as the canvas draws it: the proposed workflow with the nodes and edges it removes put back as
 * ghosts, and a mark per node and edge. Pure, so the mapping from the server's diff to what is highlighted
 * is tested on its own (web/test/review.test.ts).
 */
import type { EdgeSummary, FieldChange, ProposalView, WfEdge, WfNode, Workflow, WorkflowDiff } from "../types";

export type NodeMark = "added" | "changed" | "removed";
export type EdgeMark = "added" | "removed";

export interface ReviewView {
  /** What the canvas shows while the proposal is reviewed; never saved. */
  workflow: Workflow;
  nodes: Record<string, NodeMark>;
  /** By edge key (`source:port→target`, the canvas's edge id). */
  edges: Record<string, EdgeMark>;
}

/** A mark in words as well as colour and line style, so it does not rest on colour alone. */
export const MARK_LABELS: Record<NodeMark, string> = { added: "+ new", changed: "~ changed", removed: "− removed" };

export const edgeKey = (e: EdgeSummary) => `${e.source}:${e.sourcePort}→${e.target}`;

export class ReviewError extends Error {
  readonly code = "review.no_workflow";
}

export function reviewView(p: Pick<ProposalView, "id" | "diff" | "workflow">): ReviewView {
  if (!p.workflow)
    throw new ReviewError(`proposal ${p.id} came without its workflow (fetch GET /api/apps/:id/proposals/${p.id})`);
  const d = p.diff;
  const nodes: Record<string, NodeMark> = {};
  for (const n of d.nodes.changed) nodes[n.id] = "changed";
  for (const n of d.nodes.added) nodes[n.id] = "added";
  for (const n of d.nodes.removed) nodes[n.id] = "removed";
  const kept = new Set(p.workflow.nodes.map((n) => n.id));
  const ghosts: WfNode[] = d.nodes.removed.filter((r) => !kept.has(r.id)).map((r) => r.node);

  const edges: Record<string, EdgeMark> = {};
  const present = new Set(p.workflow.edges.map(edgeKey));
  for (const e of d.edges.added) edges[edgeKey(e)] = "added";
  // A removed duplicate of an edge that stays (the diff counts edges as a multiset) has no key of its own.
  const ghostEdges: WfEdge[] = d.edges.removed.filter((e) => !present.has(edgeKey(e))).map((e) => ({ ...e }));
  for (const e of ghostEdges) edges[edgeKey(e)] = "removed";
  return {
    workflow: { ...p.workflow, nodes: [...p.workflow.nodes, ...ghosts], edges: [...p.workflow.edges, ...ghostEdges] },
    nodes,
    edges,
  };
}

/** What the inspector lists for one node of a proposal. */
export type NodeReview =
  | { mark: "added"; fields: FieldChange[] }
  | { mark: "removed"; fields: FieldChange[] }
  | { mark: "changed"; fields: FieldChange[]; oldType?: string }
  | { mark: "unchanged"; fields: [] };

/** A new or removed node's configuration as a list of fields, so both read like changes. */
function fieldsOf(node: WfNode, kind: "added" | "removed"): FieldChange[] {
  const value = (v: unknown) => (kind === "added" ? { new: v } : { old: v });
  return [
    { path: ["title"], field: "title", kind, ...value(node.title) },
    ...Object.entries(node.config).map(([k, v]) => ({ path: ["config", k], field: k, kind, ...value(v) })),
  ];
}

export function nodeReview(d: WorkflowDiff, id: string): NodeReview {
  const added = d.nodes.added.find((n) => n.id === id);
  if (added) return { mark: "added", fields: fieldsOf(added.node, "added") };
  const removed = d.nodes.removed.find((n) => n.id === id);
  if (removed) return { mark: "removed", fields: fieldsOf(removed.node, "removed") };
  const changed = d.nodes.changed.find((n) => n.id === id);
  if (changed)
    return { mark: "changed", fields: changed.changes, ...(changed.oldType ? { oldType: changed.oldType } : {}) };
  return { mark: "unchanged", fields: [] };
}

/** The legend's counts. */
export function diffCounts(d: WorkflowDiff) {
  return {
    added: d.nodes.added.length,
    changed: d.nodes.changed.length,
    removed: d.nodes.removed.length,
    edgesAdded: d.edges.added.length,
    edgesRemoved: d.edges.removed.length,
    workflow: d.workflow.length,
  };
}
