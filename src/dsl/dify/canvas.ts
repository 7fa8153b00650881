import type { Workflow, WorkflowEdge, WorkflowNode } from "../../ir/workflow.js";
import { own } from "../../util/own.js";
import { finiteOr, has, isPoint, isRecord, type Json, type Point, setDefault, withDefault } from "./util.js";

/**
 * Fills in what the Dify editor needs and a workflow may lack: canvas widget types, positions (a deterministic
 * layered layout), container-child markers, edge ids, handles and edge data. Only **missing** keys are added;
 * nothing present is changed. The importer applies it to what it read and the exporter to what it writes, and
 * because it is idempotent, import → export → import gives back exactly the first import.
 */

interface ContainerKind {
  startType: string;
  canvasStart: string;
  flag: "isInIteration" | "isInLoop";
  idKey: "iteration_id" | "loop_id";
}

const CONTAINERS: Record<string, ContainerKind> = {
  iteration: {
    startType: "iteration-start",
    canvasStart: "custom-iteration-start",
    flag: "isInIteration",
    idKey: "iteration_id",
  },
  loop: { startType: "loop-start", canvasStart: "custom-loop-start", flag: "isInLoop", idKey: "loop_id" },
};

export function containerKind(nodeType: string | undefined): ContainerKind | undefined {
  return nodeType !== undefined ? own(CONTAINERS, nodeType) : undefined;
}

/** Dify's canvas widget type for a node type. */
export function canvasTypeFor(nodeType: string): string {
  if (nodeType === "iteration-start") return "custom-iteration-start";
  if (nodeType === "loop-start") return "custom-loop-start";
  return "custom";
}

const NODE_W = 244;
const NODE_H = 90;
const GAP_X = 96;
const GAP_Y = 40;
const ROOT_ORIGIN: Point = { x: 80, y: 80 };
/** Where Dify puts a container's start node, relative to the container. */
const BODY_ORIGIN: Point = { x: 24, y: 68 };
const BODY_PAD = 24;
const EMPTY_BODY = { w: 508, h: 200 };

interface Slot {
  node: WorkflowNode & { canvas: Json; config: Json };
  /** Index of the parent node when the parentId names an existing node (another one). */
  parent: number | undefined;
  placed: boolean;
}

/**
 * `owned`: the caller made every node's and edge's objects for this call and shares none of them (the importer's
 * draft), so the defaults are set in them in place; otherwise (the exporter's input) they are copied first.
 */
export function completeForDify(wf: Workflow, o: { owned?: boolean } = {}): Workflow {
  const owned = o.owned === true;
  const firstIndex = new Map<string, number>();
  wf.nodes.forEach((n, i) => {
    if (!firstIndex.has(n.id)) firstIndex.set(n.id, i);
  });
  // Every slot gets all three fields at once, so all slots share one shape (code reading them stays monomorphic).
  const slots: Slot[] = wf.nodes.map((n, i) => {
    const p = n.parentId === undefined ? undefined : firstIndex.get(n.parentId);
    return { node: owned ? ownedCanvas(n) : copied(n), parent: p !== i ? p : undefined, placed: false };
  });

  for (const s of slots) {
    const n = s.node;
    // canvas and config are this function's own copies (above), so defaults are set in place.
    setDefault(n.canvas, "type", canvasTypeFor(n.type));
    const parent = s.parent === undefined ? undefined : slots[s.parent];
    const kind = containerKind(parent?.node.type);
    if (parent && kind) {
      setDefault(n.canvas, "extent", "parent");
      setDefault(n.canvas, "zIndex", 1002);
      if (n.type === kind.startType) {
        setDefault(n.canvas, "draggable", false);
        setDefault(n.canvas, "selectable", false);
      }
      setDefault(n.config, kind.flag, true);
      setDefault(n.config, kind.idKey, parent.node.id);
    }
  }

  layout(slots, wf.edges, firstIndex);

  const edges = wf.edges.map((e) => completeEdge(e, slots, firstIndex, owned));
  return { ...wf, nodes: slots.map((s) => s.node), edges };
}

function ownedCanvas(n: WorkflowNode): Slot["node"] {
  if (n.canvas === undefined) n.canvas = {};
  return n as Slot["node"];
}

function copied(n: WorkflowNode): Slot["node"] {
  return { ...n, canvas: { ...(n.canvas ?? {}) }, config: { ...n.config } };
}

function completeEdge(e: WorkflowEdge, slots: Slot[], firstIndex: Map<string, number>, owned: boolean): WorkflowEdge {
  const canvas: Json = owned ? (e.canvas ?? {}) : { ...(e.canvas ?? {}) };
  const si = firstIndex.get(e.source);
  const ti = firstIndex.get(e.target);
  const s = si === undefined ? undefined : slots[si];
  const t = ti === undefined ? undefined : slots[ti];
  const sameParent = s && t && s.parent !== undefined && s.parent === t.parent ? slots[s.parent] : undefined;
  const kind = containerKind(sameParent?.node.type);
  const targetHandle = typeof canvas.targetHandle === "string" ? canvas.targetHandle : "target";
  const id = e.id ?? `${e.source}-${e.sourcePort}-${e.target}-${targetHandle}`;
  // canvas and data are the caller's own (owned) or fresh copies made here: defaults are set in place.
  setDefault(canvas, "targetHandle", "target");
  setDefault(canvas, "type", "custom");
  setDefault(canvas, "zIndex", kind ? 1002 : 0);
  setDefault(canvas, "data", {});
  if (isRecord(canvas.data)) {
    const data: Json = owned ? canvas.data : { ...canvas.data };
    if (s) setDefault(data, "sourceType", s.node.type);
    if (t) setDefault(data, "targetType", t.node.type);
    setDefault(data, "isInIteration", kind?.flag === "isInIteration");
    setDefault(data, "isInLoop", kind?.flag === "isInLoop");
    if (kind && sameParent) setDefault(data, kind.idKey, sameParent.node.id);
    canvas.data = data;
  }
  if (!owned) return { ...e, id, canvas };
  e.id = id;
  e.canvas = canvas;
  return e;
}

function sizeOf(s: Slot): { w: number; h: number } {
  return { w: finiteOr(s.node.canvas.width, NODE_W), h: finiteOr(s.node.canvas.height, NODE_H) };
}

/**
 * Nesting depth of each node (0 = top level); a parent cycle counts as top level. A chain of parents that reaches
 * the top does so in fewer steps than there are nodes, so one that has not by then is a cycle (no set of the
 * slots seen per node, and nothing walked for the many nodes without a parent).
 */
function depths(slots: Slot[]): number[] {
  return slots.map((s) => {
    let d = 0;
    let cur = s.parent === undefined ? undefined : slots[s.parent];
    while (cur && d < slots.length) {
      d++;
      cur = cur.parent === undefined ? undefined : slots[cur.parent];
    }
    return cur ? 0 : d;
  });
}

/**
 * Layered layout, one scope (top level or one container body) at a time, innermost first so a container's size
 * is known before its own scope is laid out. Columns follow the longest path from the scope's roots; rows keep
 * the nodes' order. Unplaced nodes go below any nodes that already have positions.
 */
function layout(slots: Slot[], edges: readonly WorkflowEdge[], firstIndex: Map<string, number>): void {
  if (!slots.some(needsLayout)) return;
  const depth = depths(slots);
  const scopeOf = (i: number): number => {
    const s = slots[i];
    return s?.parent !== undefined && depth[i] !== 0 ? s.parent : -1;
  };
  const scopes = new Map<number, number[]>();
  slots.forEach((_, i) => {
    const k = scopeOf(i);
    const list = scopes.get(k);
    if (list) list.push(i);
    else scopes.set(k, [i]);
  });
  const scopeDepth = (k: number): number => (k === -1 ? -1 : (depth[k] ?? 0));
  const order = [...scopes.keys()].sort((a, b) => scopeDepth(b) - scopeDepth(a));

  for (const k of order) {
    const members = scopes.get(k) ?? [];
    placeScope(slots, members, edges, firstIndex, k === -1 ? ROOT_ORIGIN : BODY_ORIGIN);
    const container = slots[k];
    if (container && containerKind(container.node.type))
      fitContainer(
        container,
        members.map((i) => slots[i]),
      );
  }

  // Absolute positions for what was just placed, outermost first so parents are done before children. Most
  // workflows come with every position: nothing was placed, nothing to sort.
  if (!slots.some((s) => s.placed)) return;
  const byDepth = slots.map((_, i) => i).sort((a, b) => (depth[a] ?? 0) - (depth[b] ?? 0));
  for (const i of byDepth) {
    const s = slots[i];
    if (!s?.placed) continue;
    const pos = s.node.canvas.position as Point;
    const k = scopeOf(i);
    const base = k === -1 ? { x: 0, y: 0 } : absolute(slots, k, new Set());
    setDefault(s.node.canvas, "positionAbsolute", { x: base.x + pos.x, y: base.y + pos.y });
    setDefault(s.node.canvas, "sourcePosition", "right");
    setDefault(s.node.canvas, "targetPosition", "left");
  }
}

/**
 * Whether laying out could change this node: it has no position, or it is a container without a size. When no node
 * does (most files: Dify writes every position and size), every scope below is already placed and every container
 * sized, so the whole pass is skipped.
 */
function needsLayout(s: Slot): boolean {
  const c = s.node.canvas;
  if (!isPoint(c.position)) return true;
  return containerKind(s.node.type) !== undefined && !(Number.isFinite(c.width) && Number.isFinite(c.height));
}

function absolute(slots: Slot[], i: number, seen: Set<number>): Point {
  const s = slots[i];
  if (!s || seen.has(i)) return { x: 0, y: 0 };
  if (isPoint(s.node.canvas.positionAbsolute)) return s.node.canvas.positionAbsolute;
  const pos = isPoint(s.node.canvas.position) ? s.node.canvas.position : { x: 0, y: 0 };
  if (s.parent === undefined) return pos;
  seen.add(i);
  const base = absolute(slots, s.parent, seen);
  return { x: base.x + pos.x, y: base.y + pos.y };
}

function placeScope(
  slots: Slot[],
  members: number[],
  edges: readonly WorkflowEdge[],
  firstIndex: Map<string, number>,
  origin: Point,
): void {
  const need = members.filter((i) => !isPoint(slots[i]?.node.canvas.position));
  if (need.length === 0) return;
  const inScope = new Set(members);

  // Longest-path layering (Kahn); nodes on a cycle keep the layer reached so far.
  const succ = new Map<number, number[]>();
  const indeg = new Map<number, number>(members.map((i) => [i, 0]));
  for (const e of edges) {
    const a = firstIndex.get(e.source);
    const b = firstIndex.get(e.target);
    if (a === undefined || b === undefined || a === b || !inScope.has(a) || !inScope.has(b)) continue;
    const out = succ.get(a);
    if (out) out.push(b);
    else succ.set(a, [b]);
    indeg.set(b, (indeg.get(b) ?? 0) + 1);
  }
  const layer = new Map<number, number>(members.map((i) => [i, 0]));
  const queue = members.filter((i) => indeg.get(i) === 0);
  for (let q = 0; q < queue.length; q++) {
    const u = queue[q] as number;
    for (const v of succ.get(u) ?? []) {
      layer.set(v, Math.max(layer.get(v) ?? 0, (layer.get(u) ?? 0) + 1));
      const d = (indeg.get(v) ?? 0) - 1;
      indeg.set(v, d);
      if (d === 0) queue.push(v);
    }
  }

  let start = origin;
  const needSet = new Set(need);
  const placedAlready = members.filter((i) => !needSet.has(i));
  if (placedAlready.length > 0) {
    let minX = Number.POSITIVE_INFINITY;
    let maxY = Number.NEGATIVE_INFINITY;
    for (const i of placedAlready) {
      const s = slots[i] as Slot;
      const p = s.node.canvas.position as Point;
      minX = Math.min(minX, p.x);
      maxY = Math.max(maxY, p.y + sizeOf(s).h);
    }
    start = { x: minX, y: maxY + GAP_Y * 2 };
  }

  const columns = new Map<number, number[]>();
  for (const i of need) {
    const l = layer.get(i) ?? 0;
    const col = columns.get(l);
    if (col) col.push(i);
    else columns.set(l, [i]);
  }
  let x = start.x;
  for (const l of [...columns.keys()].sort((a, b) => a - b)) {
    const col = columns.get(l) ?? [];
    let y = start.y;
    let width = 0;
    for (const i of col) {
      const s = slots[i] as Slot;
      const { w, h } = sizeOf(s);
      s.node.canvas = { ...s.node.canvas, position: { x, y } };
      s.placed = true;
      y += h + GAP_Y;
      width = Math.max(width, w);
    }
    x += width + GAP_X;
  }
}

/**
 * Give a container without a size one that holds its children, and grow one whose body just received placed
 * nodes (Dify keeps the size both on the canvas node and in data.width/height).
 */
function fitContainer(container: Slot, children: (Slot | undefined)[]): void {
  const c = container.node.canvas;
  const sized = Number.isFinite(c.width) && Number.isFinite(c.height);
  const grew = children.some((s) => s?.placed);
  if (sized && !grew) return;
  let w = EMPTY_BODY.w;
  let h = EMPTY_BODY.h;
  for (const s of children) {
    if (!s || !isPoint(s.node.canvas.position)) continue;
    const size = sizeOf(s);
    w = Math.max(w, s.node.canvas.position.x + size.w + BODY_PAD);
    h = Math.max(h, s.node.canvas.position.y + size.h + BODY_PAD);
  }
  if (sized) {
    const width = Math.max(c.width as number, w);
    const height = Math.max(c.height as number, h);
    container.node.canvas = { ...c, width, height };
    const cfg = container.node.config;
    if (Number.isFinite(cfg.width) || Number.isFinite(cfg.height)) {
      container.node.config = {
        ...cfg,
        ...(Number.isFinite(cfg.width) ? { width: Math.max(cfg.width as number, width) } : {}),
        ...(Number.isFinite(cfg.height) ? { height: Math.max(cfg.height as number, height) } : {}),
      };
    }
    return;
  }
  let next = withDefault(c, "width", w);
  next = withDefault(next, "height", h);
  if (!has(c, "zIndex")) next = { ...next, zIndex: 1 };
  container.node.canvas = next;
}
