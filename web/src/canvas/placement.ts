import type { WfNode, Workflow } from "../types";
import { autoLayout, GAP_X, GAP_Y, type Placed, type Point, savedPosition, sizesOf } from "./layout";

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

function parentOf(wf: Workflow, n: WfNode): string {
  return n.parentId && wf.nodes.some((x) => x.id === n.parentId) ? n.parentId : "";
}

const hits = (a: Placed, b: Placed) =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

/** Every node reachable from `from` along edges (not `from` itself). */
function downstream(wf: Workflow, from: string): Set<string> {
  const out = new Set<string>();
  const todo = [from];
  while (todo.length) {
    const id = todo.pop()!;
    for (const e of wf.edges)
      if (e.source === id && e.target !== from && !out.has(e.target)) {
        out.add(e.target);
        todo.push(e.target);
      }
  }
  return out;
}

/**
 * The nodes to place: those without a position, and each node whose saved position overlaps a sibling listed
 * before it (Dify's cards are sized differently, and hand-written files stack nodes); those are placed again.
 */
export function needsPlacing(wf: Workflow, ports: Record<string, string[]>): string[] {
  const pos: Record<string, Point> = {};
  for (const n of wf.nodes) {
    const p = savedPosition(n);
    if (p) pos[n.id] = p;
  }
  const out = wf.nodes.filter((n) => !pos[n.id]).map((n) => n.id);
  const sizes = sizesOf(wf, ports, pos);
  const seen = new Map<string, Placed[]>();
  for (const n of wf.nodes) {
    if (!pos[n.id]) continue;
    const level = parentOf(wf, n);
    const me = { ...pos[n.id]!, ...sizes[n.id]! };
    const before = seen.get(level) ?? [];
    if (before.some((b) => hits(me, b))) out.push(n.id);
    else seen.set(level, [...before, me]);
  }
  return out;
}

/**
 * Where nodes without a position go, and which placed nodes move aside for them. A new node follows its
 * predecessor, left to right, one column on; the nodes after it that stand in the way move right (as Dify
 * does when a node is inserted on an edge), and a node with only a successor takes that successor's place and
 * pushes it on. A new node with no placed neighbour takes its place from the ELK layout of the whole level,
 * shifted to line up with the nodes that keep theirs. Whatever remains in the way is passed by moving down, so
 * no two cards of a level overlap. Containers are done inside-out, so their size is known when their level is.
 */
export async function positionsForMissing(
  wf: Workflow,
  ports: Record<string, string[]>,
): Promise<Record<string, Point>> {
  const missing = new Set(needsPlacing(wf, ports));
  if (missing.size === 0) return {};
  const auto = await autoLayout(wf, ports);
  const pos: Record<string, Point> = {};
  for (const n of wf.nodes) {
    const p = savedPosition(n);
    if (p && !missing.has(n.id)) pos[n.id] = p;
  }
  const moved = new Set<string>();
  const depth = (n: WfNode, d = 0): number =>
    parentOf(wf, n) && d < 10 ? 1 + depth(wf.nodes.find((x) => x.id === n.parentId)!, d + 1) : 0;
  const levels = [...new Set(wf.nodes.filter((n) => missing.has(n.id)).map((n) => parentOf(wf, n)))];
  levels.sort(
    (a, b) =>
      (b ? depth(wf.nodes.find((x) => x.id === b)!) + 1 : 0) - (a ? depth(wf.nodes.find((x) => x.id === a)!) + 1 : 0),
  );
  for (const level of levels) {
    const siblings = wf.nodes.filter((n) => parentOf(wf, n) === level);
    const anchored = siblings.filter((n) => !missing.has(n.id) && auto[n.id]);
    const offset = {
      x: median(anchored.map((n) => pos[n.id]!.x - auto[n.id]!.x)),
      y: median(anchored.map((n) => pos[n.id]!.y - auto[n.id]!.y)),
    };
    const sizes = sizesOf(wf, ports, { ...auto, ...pos });
    const box = (id: string): Placed => ({ ...pos[id]!, ...sizes[id]! });
    const here = new Set(siblings.map((n) => n.id));
    // Nodes whose predecessor is placed go first, so a chain of new nodes flows on from the placed ones.
    const queue = siblings.filter((n) => missing.has(n.id)).map((n) => n.id);
    for (let guard = queue.length * queue.length + 1; queue.length && guard > 0; guard--) {
      const id = queue.shift()!;
      const preds = wf.edges
        .filter((e) => e.target === id && here.has(e.source) && pos[e.source])
        .map((e) => box(e.source));
      const succs = wf.edges
        .filter((e) => e.source === id && here.has(e.target) && pos[e.target])
        .map((e) => box(e.target));
      const waitsForPred = wf.edges.some((e) => e.target === id && queue.includes(e.source));
      if (!preds.length && waitsForPred && guard > queue.length) {
        queue.push(id);
        continue;
      }
      if (preds.length) pos[id] = { x: Math.max(...preds.map((p) => p.x + p.width)) + GAP_X, y: preds[0]!.y };
      else if (succs.length) pos[id] = { x: Math.min(...succs.map((s) => s.x)), y: succs[0]!.y };
      else pos[id] = { x: auto[id]!.x + offset.x, y: auto[id]!.y + offset.y };
      moved.add(id);
      pushAside(wf, id, here, pos, sizes, moved);
      settle(id, siblings, pos, sizes);
    }
  }
  const out: Record<string, Point> = {};
  for (const id of moved) out[id] = { x: Math.round(pos[id]!.x), y: Math.round(pos[id]!.y) };
  return out;
}

/** The placed nodes after `id` that stand in its way (or left of its right side) move right, together. */
function pushAside(
  wf: Workflow,
  id: string,
  here: Set<string>,
  pos: Record<string, Point>,
  sizes: Record<string, { width: number; height: number }>,
  moved: Set<string>,
) {
  const me = { ...pos[id]!, ...sizes[id]! };
  const after = [...downstream(wf, id)].filter((d) => here.has(d) && pos[d] && d !== id);
  const inWay = after.filter((d) => pos[d]!.x < me.x + me.width + GAP_X && pos[d]!.x + sizes[d]!.width > me.x - GAP_X);
  if (!inWay.length) return;
  const from = Math.min(...inWay.map((d) => pos[d]!.x));
  const dx = me.x + me.width + GAP_X - from;
  for (const d of after)
    if (pos[d]!.x >= from) {
      pos[d] = { x: pos[d]!.x + dx, y: pos[d]!.y };
      moved.add(d);
    }
}

/** Moves `id` down past any sibling it still overlaps. */
function settle(
  id: string,
  siblings: WfNode[],
  pos: Record<string, Point>,
  sizes: Record<string, { width: number; height: number }>,
) {
  for (let guard = siblings.length + 1; guard > 0; guard--) {
    const me = { ...pos[id]!, ...sizes[id]! };
    const other = siblings.find((n) => n.id !== id && pos[n.id] && hits(me, { ...pos[n.id]!, ...sizes[n.id]! }));
    if (!other) return;
    pos[id] = { x: me.x, y: pos[other.id]!.y + sizes[other.id]!.height + GAP_Y };
  }
}
