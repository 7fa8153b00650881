/**
 * What changed between two versions of a workflow, keyed by stable node id: nodes added and removed,
 * and for each node present in both, every field that differs (old → new, with its path); edges by
 * (source, port, target); workflow-level fields (name, inputs of the app, features...). This one
 * structure is what the CLI prints, the API returns and a proposal review shows.
 */
import { isDeepStrictEqual } from "node:util";
import type { Workflow, WorkflowEdge, WorkflowNode } from "./workflow.js";

export type Path = Array<string | number>;

export interface FieldChange {
  /** Path inside the node (`["config", "prompt_template", 0, "text"]`) or the workflow (`["name"]`). */
  path: Path;
  /** The path for people: `prompt_template[0].text` (config fields without the `config.` prefix). */
  field: string;
  kind: "changed" | "added" | "removed";
  old?: unknown;
  new?: unknown;
}

export interface NodeSummary {
  id: string;
  type: string;
  title: string;
  parentId?: string;
}

export interface NodeChange extends NodeSummary {
  /** The type before, when it changed. */
  oldType?: string;
  changes: FieldChange[];
}

export interface EdgeSummary {
  id?: string;
  source: string;
  sourcePort: string;
  target: string;
}

export interface WorkflowDiff {
  nodes: {
    added: Array<NodeSummary & { node: WorkflowNode }>;
    removed: Array<NodeSummary & { node: WorkflowNode }>;
    changed: NodeChange[];
  };
  edges: { added: EdgeSummary[]; removed: EdgeSummary[] };
  workflow: FieldChange[];
  /** No change at all. */
  empty: boolean;
  /** Flat id lists (the shape the current canvas reads). */
  nodesAdded: string[];
  nodesRemoved: string[];
  nodesChanged: string[];
  edgesAdded: string[];
  edgesRemoved: string[];
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * A field's path for people: `config` dropped, and a list item named by its own name where it has one
 * (`outputs 'answer'.value_selector`, not `outputs[0].value_selector[0]`). `names` holds, per path step, the
 * name of the list item at that step, if any.
 */
export function fieldName(path: Path, names: readonly (string | undefined)[] = []): string {
  const from = path[0] === "config" ? 1 : 0;
  let s = "";
  for (let i = from; i < path.length; i++) {
    const k = path[i]!;
    if (typeof k === "number") s += names[i] !== undefined ? ` '${names[i]}'` : `[${k}]`;
    else s += s ? `.${k}` : k;
  }
  return s || "config";
}

const NAME_KEYS = ["variable", "name", "key", "label", "case_id", "id"] as const;

/** Ids a program made (a UUID, a timestamp): they name nothing a person recognises. */
const OPAQUE_ID = /^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\d{10,})$/i;

/**
 * The name a list item carries (a variable, a case, a class), when it is the same before and after; a prompt
 * message is named by its place and role (`message 2 (user)`), never by its generated id.
 */
function itemName(x: unknown, y: unknown, index: number): string | undefined {
  if (!isObject(x) || !isObject(y)) return undefined;
  for (const k of NAME_KEYS) {
    const v = x[k];
    if ((typeof v === "string" || typeof v === "number") && v === y[k] && String(v).trim() !== "") {
      if (OPAQUE_ID.test(String(v))) break;
      return String(v);
    }
  }
  if (typeof x.role === "string" && x.role === y.role) return `message ${index + 1} (${x.role})`;
  return undefined;
}

const isScalar = (v: unknown) => v === null || ["string", "number", "boolean"].includes(typeof v);

/**
 * Leaf-level differences: objects key by key, lists of equal length element by element; a list whose
 * length changed is one change of the whole list (an insertion shown as old list → new list).
 */
export function valueChanges(
  a: unknown,
  b: unknown,
  path: Path = [],
  out: FieldChange[] = [],
  names: (string | undefined)[] = [],
): FieldChange[] {
  if (isDeepStrictEqual(a, b)) return out;
  if (isObject(a) && isObject(b)) {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const inA = Object.hasOwn(a, k);
      const inB = Object.hasOwn(b, k);
      const p = [...path, k];
      const n = [...names, undefined];
      if (inA && inB) valueChanges(a[k], b[k], p, out, n);
      else if (inA) out.push({ path: p, field: fieldName(p, n), kind: "removed", old: a[k] });
      else out.push({ path: p, field: fieldName(p, n), kind: "added", new: b[k] });
    }
    return out;
  }
  // A list of plain values (a selector, options) reads as one value: ["1005", "text"] → ["1007", "text"].
  const plain = Array.isArray(a) && Array.isArray(b) && a.every(isScalar) && b.every(isScalar);
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length && !plain) {
    a.forEach((x, i) => {
      valueChanges(x, b[i], [...path, i], out, [...names, itemName(x, b[i], i)]);
    });
    return out;
  }
  out.push({ path, field: fieldName(path, names), kind: "changed", old: a, new: b });
  return out;
}

const summary = (n: WorkflowNode): NodeSummary => ({
  id: n.id,
  type: n.type,
  title: n.title,
  ...(n.parentId !== undefined ? { parentId: n.parentId } : {}),
});

export const edgeLabel = (e: EdgeSummary) => `${e.source}:${e.sourcePort}→${e.target}`;
const edgeSummary = (e: WorkflowEdge): EdgeSummary => ({
  ...(e.id ? { id: e.id } : {}),
  source: e.source,
  sourcePort: e.sourcePort,
  target: e.target,
});

function nodeChange(x: WorkflowNode, y: WorkflowNode): NodeChange | undefined {
  const pick = (n: WorkflowNode) => ({
    type: n.type,
    title: n.title,
    parentId: n.parentId,
    config: n.config,
    canvas: n.canvas,
  });
  const changes = valueChanges(pick(x), pick(y));
  if (changes.length === 0) return undefined;
  return { ...summary(y), ...(x.type !== y.type ? { oldType: x.type } : {}), changes };
}

/** Edges as a multiset of (source, port, target): a duplicated edge counts twice. */
function edgeDelta(from: WorkflowEdge[], to: WorkflowEdge[]): EdgeSummary[] {
  const left = new Map<string, number>();
  for (const e of from) left.set(edgeLabel(e), (left.get(edgeLabel(e)) ?? 0) + 1);
  return to
    .filter((e) => {
      const n = left.get(edgeLabel(e)) ?? 0;
      if (n > 0) left.set(edgeLabel(e), n - 1);
      return n === 0;
    })
    .map(edgeSummary);
}

export function diffWorkflows(before: Workflow | undefined, after: Workflow): WorkflowDiff {
  const a = new Map((before?.nodes ?? []).map((n) => [n.id, n]));
  const b = new Map(after.nodes.map((n) => [n.id, n]));
  const added = after.nodes.filter((n) => !a.has(n.id)).map((n) => ({ ...summary(n), node: n }));
  const removed = (before?.nodes ?? []).filter((n) => !b.has(n.id)).map((n) => ({ ...summary(n), node: n }));
  const changed = after.nodes.flatMap((n) => {
    const x = a.get(n.id);
    const c = x ? nodeChange(x, n) : undefined;
    return c ? [c] : [];
  });
  const edgesAdded = edgeDelta(before?.edges ?? [], after.edges);
  const edgesRemoved = edgeDelta(after.edges, before?.edges ?? []);
  const top = (w: Workflow | undefined) => ({
    name: w?.name,
    description: w?.description,
    mode: w?.mode,
    environment_variables: w?.environment_variables,
    conversation_variables: w?.conversation_variables,
    features: w?.features,
  });
  const workflow = before ? valueChanges(top(before), top(after)) : [];
  return {
    nodes: { added, removed, changed },
    edges: { added: edgesAdded, removed: edgesRemoved },
    workflow,
    empty:
      added.length + removed.length + changed.length + edgesAdded.length + edgesRemoved.length + workflow.length === 0,
    nodesAdded: added.map((n) => n.id),
    nodesRemoved: removed.map((n) => n.id),
    nodesChanged: changed.map((n) => n.id),
    edgesAdded: edgesAdded.map(edgeLabel),
    edgesRemoved: edgesRemoved.map(edgeLabel),
  };
}

const quote = (n: NodeSummary) => (n.title ? `“${n.title}”` : n.id);
const plural = (k: number, one: string) => `${k} ${one}${k === 1 ? "" : "s"}`;

/** One honest sentence, computed from the diff alone. */
export function summarizeDiff(d: WorkflowDiff): string {
  if (d.empty) return "No changes.";
  const parts: string[] = [];
  const list = (xs: NodeSummary[]) => xs.map((n) => `${n.type} ${quote(n)}`).join(", ");
  if (d.nodes.added.length) parts.push(`added ${list(d.nodes.added)}`);
  if (d.nodes.removed.length) parts.push(`removed ${list(d.nodes.removed)}`);
  const changed = d.nodes.changed.filter((c) => c.changes.some((x) => x.path[0] !== "canvas"));
  if (changed.length)
    parts.push(
      `changed ${changed.map((c) => `${quote(c)} (${[...new Set(c.changes.filter((x) => x.path[0] !== "canvas").map((x) => x.field))].join(", ")})`).join(", ")}`,
    );
  const moved = d.nodes.changed.length - changed.length;
  if (moved) parts.push(`moved ${plural(moved, "node")}`);
  const e = [
    d.edges.added.length ? `${d.edges.added.length} added` : "",
    d.edges.removed.length ? `${d.edges.removed.length} removed` : "",
  ].filter(Boolean);
  if (e.length) parts.push(`edges: ${e.join(", ")}`);
  if (d.workflow.length) parts.push(`workflow: ${[...new Set(d.workflow.map((x) => x.field))].join(", ")}`);
  const text = parts.join("; ");
  return `${text[0]!.toUpperCase()}${text.slice(1)}.`;
}

const show = (v: unknown, max = 120) => {
  const s = v === undefined ? "∅" : typeof v === "string" ? JSON.stringify(v) : (JSON.stringify(v) ?? String(v));
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
};

/** The diff as text lines: one per node and edge, and one per changed field (old → new). */
export function formatDiff(d: WorkflowDiff): string {
  if (d.empty) return "no changes";
  const lines: string[] = [];
  for (const n of d.nodes.added) lines.push(`+ node ${n.id} (${n.type}) ${quote(n)}`);
  for (const n of d.nodes.removed) lines.push(`- node ${n.id} (${n.type}) ${quote(n)}`);
  for (const n of d.nodes.changed) {
    lines.push(`~ node ${n.id} (${n.oldType ? `${n.oldType} → ` : ""}${n.type}) ${quote(n)}`);
    for (const c of n.changes) lines.push(`    ${c.field}: ${show(c.old)} → ${show(c.new)}`);
  }
  for (const e of d.edges.added) lines.push(`+ edge ${edgeLabel(e)}`);
  for (const e of d.edges.removed) lines.push(`- edge ${edgeLabel(e)}`);
  for (const c of d.workflow) lines.push(`~ ${c.field}: ${show(c.old)} → ${show(c.new)}`);
  return lines.join("\n");
}
