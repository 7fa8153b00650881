import { describeNode, type NodeDescription } from "../ir/describe.js";
import type { NodeTypeDef, NodeTypes } from "../ir/registry.js";
import type { ValueType } from "../ir/types.js";
import type { AppMode, Workflow, WorkflowEdge, WorkflowNode } from "../ir/workflow.js";
import type { DiagnosticSink } from "./codes.js";

/** The root scope's id in `scopeOf`; container scopes use the container's node index. */
export const ROOT = -1;

export interface ANode {
  idx: number;
  id: string;
  node: WorkflowNode;
  desc: NodeDescription;
  def?: NodeTypeDef<any>;
  /** Index of the enclosing container, or ROOT. */
  scope: number;
  /** Usable edges (both ends exist, same scope, not duplicated). */
  out: AEdge[];
  in: AEdge[];
}

export interface AEdge {
  idx: number;
  edge: WorkflowEdge;
  source: number;
  target: number;
  port: string;
  /** Closes a cycle in the DFS order of its scope; ignored by the dataflow passes. */
  back: boolean;
}

/** One value a node reads: a selector field, or a `{{#…#}}` reference in one of its texts. */
export interface Read {
  reader: number;
  selector: string[];
  field: string;
  expects?: ValueType;
  optional: boolean;
  template: boolean;
}

export interface Scope {
  /** Container node index, or ROOT. */
  container: number;
  members: number[];
  /** Entry node of the scope (start node, or the container's start node); undefined when missing. */
  entry?: number;
  /** Members in a topological order of the usable non-back edges (filled by cycles.ts). */
  order: number[];
  /** The scope's container type could not be resolved (unknown type): skip body reachability. */
  opaque?: boolean;
}

export interface AnalysisGraph {
  workflow: Workflow;
  mode: AppMode;
  nodes: ANode[];
  byId: Map<string, number>;
  edges: AEdge[];
  scopes: Map<number, Scope>;
  /** Scopes parents-first, so a body is visited after its container's scope. */
  scopeOrder: number[];
  /** Ids used by more than one node: edges naming them are ambiguous. */
  duplicateIds: Set<string>;
}

const EMPTY_DESC = (node: WorkflowNode): NodeDescription => ({
  node,
  configDiagnostics: [],
  inputs: [],
  outputs: [],
  ports: ["source"],
  texts: [],
  known: false,
});

/** describeNode, made total: a node type's callbacks throwing on an odd config becomes a diagnostic. */
function safeDescribe(node: WorkflowNode, types: NodeTypes, sink: DiagnosticSink): NodeDescription {
  try {
    const d = describeNode(node, types);
    if (!Array.isArray(d.ports)) return { ...d, ports: ["source"] };
    return d;
  } catch (e) {
    sink.add("config.invalid", `${node.type} node "${node.title || node.id}": cannot read config: ${errText(e)}`, {
      nodeId: node.id,
    });
    return EMPTY_DESC(node);
  }
}

export function errText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** Index nodes (first of a duplicated id wins), describe them and assign container scopes. */
export function buildNodes(workflow: Workflow, mode: AppMode, types: NodeTypes, sink: DiagnosticSink): AnalysisGraph {
  const nodes: ANode[] = [];
  const byId = new Map<string, number>();
  const duplicateIds = new Set<string>();
  const rawNodes = Array.isArray(workflow.nodes) ? workflow.nodes : [];
  for (const [i, n] of rawNodes.entries()) {
    if (!n || typeof n !== "object" || typeof n.id !== "string" || n.id === "" || typeof n.type !== "string") {
      sink.add("node.invalid", `nodes[${i}] has no string id or type`, { field: `nodes[${i}]` });
      continue;
    }
    if (byId.has(n.id)) {
      duplicateIds.add(n.id);
      sink.add("node.duplicate_id", `node id "${n.id}" is used by more than one node (nodes[${i}] ignored)`, {
        nodeId: n.id,
      });
      continue;
    }
    const node: WorkflowNode = n.config && typeof n.config === "object" ? n : { ...n, config: {} };
    const desc = safeDescribe(node, types, sink);
    const idx = nodes.length;
    byId.set(n.id, idx);
    nodes.push({ idx, id: n.id, node, desc, def: desc.def, scope: ROOT, out: [], in: [] });
  }
  assignScopes(nodes, byId, sink);
  const scopes = new Map<number, Scope>();
  scopes.set(ROOT, { container: ROOT, members: [], order: [] });
  for (const n of nodes) {
    if (n.scope !== ROOT && !scopes.has(n.scope)) {
      const c = nodes[n.scope]!;
      scopes.set(n.scope, { container: n.scope, members: [], order: [], opaque: !c.def?.container });
    }
  }
  // Containers without children still get an (empty) scope so missing starts are reported.
  for (const n of nodes) {
    if (n.def?.container && !scopes.has(n.idx)) scopes.set(n.idx, { container: n.idx, members: [], order: [] });
  }
  for (const n of nodes) scopes.get(n.scope)!.members.push(n.idx);
  const scopeOrder: number[] = [];
  const visit = (s: number) => {
    scopeOrder.push(s);
    for (const m of scopes.get(s)!.members) if (scopes.has(m)) visit(m);
  };
  visit(ROOT);
  return { workflow, mode, nodes, byId, edges: [], scopes, scopeOrder, duplicateIds };
}

/**
 * parentId must name a container (or a node of unknown type, which may be one). Nesting cycles and
 * missing parents put the node back into the root scope, so later passes still see it.
 */
function assignScopes(nodes: ANode[], byId: Map<string, number>, sink: DiagnosticSink): void {
  for (const n of nodes) {
    const pid = n.node.parentId;
    if (pid === undefined || pid === null) continue;
    const p = byId.get(pid);
    if (p === undefined) {
      sink.add("container.bad_nesting", `parentId "${pid}" names no node`, { nodeId: n.id, field: "parentId" });
      continue;
    }
    const parent = nodes[p]!;
    if (parent.def && !parent.def.container) {
      sink.add("container.bad_nesting", `parent "${pid}" (${parent.node.type}) is not a container`, {
        nodeId: n.id,
        field: "parentId",
      });
      continue;
    }
    if (p === n.idx) {
      sink.add("container.bad_nesting", "node is its own parent", { nodeId: n.id, field: "parentId" });
      continue;
    }
    n.scope = p;
  }
  // Break nesting cycles (A in B, B in A): walk up with a step bound.
  for (const n of nodes) {
    let cur = n.scope;
    let steps = 0;
    while (cur !== ROOT && steps <= nodes.length) {
      cur = nodes[cur]!.scope;
      steps++;
    }
    if (cur !== ROOT) {
      sink.add("container.bad_nesting", "parentId chain loops back on itself", { nodeId: n.id, field: "parentId" });
      n.scope = ROOT;
    }
  }
}

/** Is `anc` (a container index) the node's scope or an enclosing scope of it? */
export function insideContainer(g: AnalysisGraph, idx: number, anc: number): boolean {
  let cur = g.nodes[idx]!.scope;
  while (cur !== ROOT) {
    if (cur === anc) return true;
    cur = g.nodes[cur]!.scope;
  }
  return false;
}

/** Scope chain of a node, innermost first, ending with ROOT. */
export function scopeChain(g: AnalysisGraph, idx: number): number[] {
  const out: number[] = [];
  let cur = g.nodes[idx]!.scope;
  while (cur !== ROOT) {
    out.push(cur);
    cur = g.nodes[cur]!.scope;
  }
  out.push(ROOT);
  return out;
}
