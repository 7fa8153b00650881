/**
 * A workflow's layout (where nodes and edges sit on the canvas, the viewport) apart from its content. Moving a
 * node changes nothing a run does, so comparisons that guard against losing a user's edits (undo of an AI
 * change) judge content only.
 */
import { canonicalJson } from "../util/json.js";
import type { Workflow } from "./workflow.js";

/** The workflow without editor-only layout: node and edge `canvas`, and `meta.viewport`. */
export function withoutLayout(wf: Workflow): unknown {
  const { viewport: _viewport, ...meta } = wf.meta ?? {};
  return {
    ...wf,
    nodes: wf.nodes.map(({ canvas: _c, ...n }) => n),
    edges: wf.edges.map(({ canvas: _c, ...e }) => e),
    ...(wf.meta ? { meta } : {}),
  };
}

/** Same content whatever the layout and key order. */
export const sameContent = (a: Workflow, b: Workflow): boolean =>
  canonicalJson(withoutLayout(a)) === canonicalJson(withoutLayout(b));

/**
 * `target` with the layout `from` has for the nodes and edges both hold, so undoing an AI change keeps where
 * the user (or the studio's auto-placement) put the nodes that stay.
 */
export function carryLayout(target: Workflow, from: Workflow): Workflow {
  const nodeCanvas = new Map(from.nodes.map((n) => [n.id, n.canvas]));
  const edgeKey = (e: Workflow["edges"][number]) => `${e.source}\u0000${e.sourcePort}\u0000${e.target}`;
  const edgeCanvas = new Map(from.edges.map((e) => [edgeKey(e), e.canvas]));
  const viewport = from.meta?.viewport;
  return {
    ...target,
    nodes: target.nodes.map((n) => (nodeCanvas.get(n.id) ? { ...n, canvas: nodeCanvas.get(n.id) } : n)),
    edges: target.edges.map((e) => (edgeCanvas.get(edgeKey(e)) ? { ...e, canvas: edgeCanvas.get(edgeKey(e)) } : e)),
    ...(viewport !== undefined ? { meta: { ...target.meta, viewport } } : {}),
  };
}
