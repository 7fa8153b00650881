import { useStore } from "../store";
import type { WfEdge, WfNode, Workflow } from "../types";

/** What Ctrl+C took: a node with its container body (if any) and the edges inside that body. */
interface Copied {
  nodes: WfNode[];
  edges: WfEdge[];
}
let copied: Copied | undefined;

function bodyOf(wf: Workflow, id: string): Copied | undefined {
  const root = wf.nodes.find((n) => n.id === id);
  if (!root) return undefined;
  const ids = new Set([id]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const n of wf.nodes)
      if (n.parentId && ids.has(n.parentId) && !ids.has(n.id)) {
        ids.add(n.id);
        grew = true;
      }
  }
  return {
    nodes: wf.nodes.filter((n) => ids.has(n.id)),
    edges: wf.edges.filter((e) => ids.has(e.source) && ids.has(e.target)),
  };
}

/**
 * Adds a copy with fresh ids; references between the copied nodes follow the new ids. The copied root has no
 * position, so the canvas places it clear of every card (placement.ts); the body keeps its layout inside it.
 */
function pasteInto(wf: Workflow, c: Copied): { wf: Workflow; root: string } {
  const taken = new Set(wf.nodes.map((n) => n.id));
  const fresh = new Map<string, string>();
  let k = wf.nodes.length + 1;
  for (const n of c.nodes) {
    while (taken.has(String(k))) k++;
    fresh.set(n.id, String(k));
    taken.add(String(k));
  }
  // Ids appear in selectors and {{#id.var#}} templates; a whole-string swap of each old id keeps references inside.
  const remap = (v: unknown): unknown =>
    typeof v === "string"
      ? (fresh.get(v) ?? v.replace(/\{\{#([^.#]+)\./g, (m, id: string) => (fresh.has(id) ? `{{#${fresh.get(id)}.` : m)))
      : Array.isArray(v)
        ? v.map(remap)
        : v && typeof v === "object"
          ? Object.fromEntries(Object.entries(v).map(([key, x]) => [key, remap(x)]))
          : v;
  const rootId = c.nodes[0]!.id;
  const nodes = c.nodes.map((n): WfNode => {
    const { canvas, ...rest } = n;
    const copy: WfNode = { ...rest, id: fresh.get(n.id)!, config: remap(n.config) as Record<string, unknown> };
    if (n.parentId) copy.parentId = fresh.get(n.parentId) ?? n.parentId;
    if (n.id !== rootId && canvas?.position) copy.canvas = { position: canvas.position };
    return copy;
  });
  const edges = c.edges.map((e) => ({
    ...e,
    id: undefined,
    source: fresh.get(e.source)!,
    target: fresh.get(e.target)!,
  }));
  return { wf: { ...wf, nodes: [...wf.nodes, ...nodes], edges: [...wf.edges, ...edges] }, root: fresh.get(rootId)! };
}

/** Ctrl+C: the selected node (and its body). Returns whether there was one. */
export function copySelected(): boolean {
  const { draft, selected } = useStore.getState();
  const c = draft && selected ? bodyOf(draft, selected) : undefined;
  if (c) copied = c;
  return !!c;
}

/** Ctrl+V: the copied node again, selected. */
export function paste(): boolean {
  const s = useStore.getState();
  if (!s.draft || !copied) return false;
  const { wf, root } = pasteInto(s.draft, copied);
  s.setDraft(wf);
  s.select(root);
  return true;
}

/** Ctrl+D: copy and paste the selected node in one go. */
export function duplicateSelected(): boolean {
  return copySelected() && paste();
}
