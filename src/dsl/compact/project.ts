/**
 * IR → the compact JSON generation models read and write, so a chat turn can show (and the model can
 * edit) the current workflow in the vocabulary it answers in. The projection remembers which compact id
 * stands for which IR node; whatever it does not show stays in the IR node and survives an edit
 * (src/authoring/edit/). A node the shorthand cannot show faithfully is shown as `{"dify": config}`.
 */
import { describeNode } from "../../ir/describe.js";
import type { NodeTypes } from "../../ir/registry.js";
import type { Workflow, WorkflowEdge, WorkflowNode } from "../../ir/workflow.js";
import { nodeCatalogue } from "../../nodes/index.js";
import { isPlainObject, type JsonObject, setOwn } from "../../util/json.js";
import { Converter } from "./convert.js";
import { Projector } from "./projector.js";
import { compactTypeOf, shorthandFor } from "./shorthand.js";

export interface CompactNode {
  id: string;
  type: string;
  title?: string;
  param: JsonObject;
}

/** An edge's port is its index among the source's ports; a handle the node does not have is kept as text. */
export type CompactEdge = [string, number | string, string];

export interface CompactWorkflow {
  nodes_info: CompactNode[];
  edges: CompactEdge[];
}

export interface Projection {
  compact: CompactWorkflow;
  /** Compact id → IR node id. */
  toIr: Map<string, string>;
  /** IR node id → compact id (the first node, should a broken file use an id twice). */
  toCompact: Map<string, string>;
  /** Compact id → index of the node in `workflow.nodes` (distinct even for duplicated ids). */
  index: Map<string, number>;
}

export interface ProjectOptions {
  /** Compact ids to keep from an earlier projection (IR id → compact id), so a conversation's ids stay put. */
  prior?: ReadonlyMap<string, string>;
  /** The node types to read the workflow against; default every node Weft defines. */
  nodeTypes?: NodeTypes;
}

/** Editor bookkeeping that means nothing to a model; never shown, so always kept. */
const HIDDEN = new Set(["selected", "isInIteration", "isInLoop", "iteration_id", "loop_id"]);

/**
 * Topological order of one scope (top level or a container body), stable by file position. Nodes are
 * handled as objects, not ids: a broken file may use one id twice, and every node must still be shown.
 */
function scopeOrder(wf: Workflow, members: WorkflowNode[]): WorkflowNode[] {
  const byId = new Map<string, WorkflowNode>();
  for (const n of members) if (!byId.has(n.id)) byId.set(n.id, n);
  const indeg = new Map<WorkflowNode, number>(members.map((n) => [n, 0]));
  for (const e of wf.edges) {
    const t = byId.get(e.target);
    if (byId.has(e.source) && t) indeg.set(t, indeg.get(t)! + 1);
  }
  const out: WorkflowNode[] = [];
  const ready = members.filter((n) => indeg.get(n) === 0);
  const seen = new Set<WorkflowNode>();
  while (ready.length) {
    const n = ready.shift()!;
    if (seen.has(n)) continue;
    seen.add(n);
    out.push(n);
    if (byId.get(n.id) !== n) continue;
    for (const e of wf.edges) {
      const t = e.source === n.id ? byId.get(e.target) : undefined;
      if (!t) continue;
      const d = indeg.get(t)! - 1;
      indeg.set(t, d);
      if (d === 0) ready.push(t);
    }
  }
  // Nodes on a cycle keep their file order at the end; the analyser reports the cycle.
  return [...out, ...members.filter((n) => !seen.has(n))];
}

/** Nodes in display order: each scope topologically, a container's body right after it. */
function displayOrder(wf: Workflow, types: NodeTypes): Array<{ node: WorkflowNode; parent?: WorkflowNode }> {
  const containers = new Map<string, WorkflowNode>();
  for (const n of wf.nodes) if (types.get(n.type)?.container && !containers.has(n.id)) containers.set(n.id, n);
  const childrenOf = new Map<WorkflowNode | undefined, WorkflowNode[]>();
  for (const n of wf.nodes) {
    // A parentId naming no container (a broken file) is shown at the top level; the IR node keeps it.
    const p = n.parentId !== undefined ? containers.get(n.parentId) : undefined;
    const key = p && p !== n ? p : undefined;
    childrenOf.set(key, [...(childrenOf.get(key) ?? []), n]);
  }
  const out: Array<{ node: WorkflowNode; parent?: WorkflowNode }> = [];
  const placed = new Set<WorkflowNode>();
  const visit = (scope: WorkflowNode | undefined) => {
    for (const n of scopeOrder(wf, childrenOf.get(scope) ?? [])) {
      if (placed.has(n)) continue;
      placed.add(n);
      out.push({ node: n, ...(scope ? { parent: scope } : {}) });
      visit(n);
    }
  };
  visit(undefined);
  // Parent cycles (a inside b inside a) are never reached from the top: shown at the top level.
  for (const n of wf.nodes) if (!placed.has(n)) out.push({ node: n });
  return out;
}

/** Compact ids: "1", "2", ... at the top, "<parent>-1", ... in a body; earlier ids are kept where valid. */
function assignIds(
  order: Array<{ node: WorkflowNode; parent?: WorkflowNode }>,
  prior?: ReadonlyMap<string, string>,
): Map<WorkflowNode, string> {
  const cid = new Map<WorkflowNode, string>();
  const used = new Set<string>();
  const priorIds = new Set(prior?.values() ?? []);
  const parentCid = (p?: WorkflowNode) => (p ? cid.get(p) : undefined);
  const fits = (id: string, parent?: string) =>
    parent === undefined
      ? /^[A-Za-z0-9_]+$/.test(id)
      : id.startsWith(`${parent}-`) && /^[A-Za-z0-9_]+$/.test(id.slice(parent.length + 1));
  const counters = new Map<string | undefined, number>();
  for (const { node, parent } of order) {
    const pc = parentCid(parent);
    const p = prior?.get(node.id);
    if (p !== undefined && !used.has(p) && fits(p, pc)) {
      cid.set(node, p);
      used.add(p);
      continue;
    }
    let k = counters.get(pc) ?? 0;
    let id: string;
    do id = pc === undefined ? String(++k) : `${pc}-${++k}`;
    while (used.has(id) || priorIds.has(id));
    counters.set(pc, k);
    cid.set(node, id);
    used.add(id);
  }
  return cid;
}

function difyForm(node: WorkflowNode, p: Projector): JsonObject {
  const config: JsonObject = {};
  for (const [k, v] of Object.entries(node.config)) if (!HIDDEN.has(k)) setOwn(config, k, p.dify(v));
  return { dify: config };
}

/** The shorthand param, when it reads back without problems and keeps every list the same length. */
function shorthandParam(node: WorkflowNode, p: Projector, c: Converter): JsonObject | undefined {
  const s = shorthandFor(compactTypeOf(node.type, node.config));
  if (!s || s.registryType !== node.type || (s.fits && !s.fits(node.config))) return undefined;
  const param = s.project(node.config, p);
  const before = c.diags.length;
  const back = s.convert(param, c, node.id).config;
  const faithful =
    c.diags.slice(before).every((d) => d.severity !== "error") &&
    Object.entries(back).every(
      ([k, v]) =>
        !Array.isArray(v) || !Array.isArray(node.config[k]) || v.length === (node.config[k] as unknown[]).length,
    );
  c.diags.length = before;
  return faithful ? param : undefined;
}

function edgeOf(
  e: WorkflowEdge,
  byId: Map<string, WorkflowNode>,
  cid: Map<string, string>,
  types: NodeTypes,
): CompactEdge {
  const src = byId.get(e.source);
  const ports = src ? describeNode(src, types).ports : [];
  const i = ports.indexOf(e.sourcePort);
  return [cid.get(e.source) ?? e.source, i >= 0 ? i : e.sourcePort, cid.get(e.target) ?? e.target];
}

export function projectWorkflow(wf: Workflow, opts: ProjectOptions = {}): Projection {
  const types = opts.nodeTypes ?? nodeCatalogue;
  const order = displayOrder(wf, types);
  const cidOf = assignIds(order, opts.prior);
  const toIr = new Map<string, string>();
  const toCompact = new Map<string, string>();
  const index = new Map<string, number>();
  wf.nodes.forEach((n, i) => {
    const c = cidOf.get(n)!;
    toIr.set(c, n.id);
    index.set(c, i);
    if (!toCompact.has(n.id)) toCompact.set(n.id, c);
  });
  const p = new Projector((id) => toCompact.get(id));
  // A converter that reads compact ids back as these IR ids, to check each shorthand reads back.
  const check = new Converter({ anyOrder: true, nodeTypes: types });
  for (const [c, ir] of toIr) check.ids.set(c, ir);
  for (const { node } of order) check.types.set(cidOf.get(node)!, compactTypeOf(node.type, node.config));

  const nodes_info = order.map(({ node }): CompactNode => {
    const type = types.get(node.type) ? compactTypeOf(node.type, node.config) : node.type;
    const param = shorthandParam(node, p, check) ?? difyForm(node, p);
    return { id: cidOf.get(node)!, type, ...(node.title ? { title: node.title } : {}), param };
  });
  const byId = new Map<string, WorkflowNode>();
  for (const n of wf.nodes) if (!byId.has(n.id)) byId.set(n.id, n);
  const edges = wf.edges.map((e) => edgeOf(e, byId, toCompact, types));
  return { compact: { nodes_info, edges }, toIr, toCompact, index };
}

/** The compact JSON of a workflow (a fresh projection). */
export function workflowToCompact(wf: Workflow): CompactWorkflow {
  return projectWorkflow(wf).compact;
}

export const isDifyForm = (param: unknown): boolean => isPlainObject(param) && Object.hasOwn(param, "dify");
