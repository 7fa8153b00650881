/**
 * The graph an edit works on. Both forms an edit meets fit it: a Weft workflow (the optimiser) and the
 * compact form a chat model was shown (its `param` read as `config`, its edge triples as edges), so one
 * operation means one thing on either.
 */
import type { NodeTypes } from "../ir/registry.js";
import { editFail } from "./error.js";

export interface EditNode {
  id: string;
  type: string;
  title?: string;
  parentId?: string;
  config: Record<string, unknown>;
}

/** Compact edges name a port by its index (a number) or its name; workflow edges by name. */
export interface EditEdge {
  id?: string;
  source: string;
  sourcePort: string | number;
  target: string;
}

export interface EditGraph {
  nodes: EditNode[];
  edges: EditEdge[];
}

/** What depends on the form being edited; see `EditEnv`. */
export interface Wiring {
  /** Gives a new node what its form needs (title, model, inputs); `readFrom` is the node it follows. */
  complete(g: EditGraph, node: EditNode, readFrom?: EditNode): void;
  /** Makes `reader` read `node`'s main output. */
  publish(g: EditGraph, reader: EditNode, node: EditNode): void;
  /** Drops every reference to the removed nodes. */
  dropReferences(g: EditGraph, removed: ReadonlySet<string>): void;
}

export interface EditEnv {
  wiring: Wiring;
  /** The node types edits read outputs from (which output a node's readers read). */
  nodeTypes: NodeTypes;
  /**
   * Edits applied as one batch, checked as a whole afterwards (chat answers): an edge may name a node
   * that a later edit of the batch adds.
   */
  batch?: boolean;
  /** Prompt templates `refine_prompt` may name (`role/variant`). */
  templates?: (ref: string) => { system: string } | undefined;
}

/** Compact forms are completed and their references checked by their reader (src/authoring/edit/read.ts). */
export const READER_WIRING: Wiring = { complete() {}, publish() {}, dropReferences() {} };

export function nodeOf(g: EditGraph, id: string, field = "id"): EditNode {
  const n = g.nodes.find((x) => x.id === id);
  if (!n) editFail("edit.unknown_node", `there is no node "${id}"`, id, field);
  return n;
}

export function isProtected(n: EditNode): boolean {
  return n.type === "start" || n.type === "end";
}

export interface EdgeRef {
  source: string;
  sourcePort: string | number;
  target: string;
}

/** Port 0 and port "0" are different edges in the compact form, so the key keeps the port's type. */
export function edgeKey(e: EdgeRef): string {
  return JSON.stringify([e.source, e.sourcePort, e.target]);
}

export function describeEdgeRef(e: EdgeRef): string {
  return `${e.source}:${e.sourcePort} → ${e.target}`;
}

export function hasEdge(g: EditGraph, e: EdgeRef): boolean {
  const k = edgeKey(e);
  return g.edges.some((x) => edgeKey(x) === k);
}

/** Adds the edge unless it is there already. */
export function pushEdge(g: EditGraph, source: string, sourcePort: string | number, target: string): void {
  if (hasEdge(g, { source, sourcePort, target })) return;
  g.edges.push({ id: `${source}-${sourcePort}-${target}`, source, sourcePort, target });
}

export function findEdge(g: EditGraph, e: EdgeRef, field = "edge"): number {
  const k = edgeKey(e);
  const i = g.edges.findIndex((x) => edgeKey(x) === k);
  if (i < 0) editFail("edit.unknown_edge", `there is no edge ${describeEdgeRef(e)}`, e.source, field);
  return i;
}
