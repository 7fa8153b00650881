import ELK, { type ElkNode } from "elkjs/lib/elk-api.js";
import elkWorkerUrl from "elkjs/lib/elk-worker.min.js?url";
import type { WfNode, Workflow } from "../types";

// The layout engine runs in a Web Worker so a large graph never blocks the page.
const elk = new ELK({ workerUrl: elkWorkerUrl });

export const CARD_WIDTH = 244;
export const HEAD_HEIGHT = 40;
export const PORT_ROW = 26;
const CONTAINER_PAD = { top: 56, side: 24, bottom: 24 };

export const isContainerType = (t: string) => t === "iteration" || t === "loop";
/** The start node Dify puts in each container: drawn small (as Dify does), so it never covers the first body node. */
export const isContainerStartType = (t: string) => t === "iteration-start" || t === "loop-start";
export const START_CARD: Size = { width: 96, height: 44 };
/** Room between columns and between cards stacked in one column; ELK uses the same. */
export const GAP_X = 80;
export const GAP_Y = 40;

export interface Point {
  x: number;
  y: number;
}
export interface Size {
  width: number;
  height: number;
}
export type Placed = Point & Size;

/** Whether a card lists its ports as rows (branching nodes) or shows one summary line. */
export const portRows = (ports: string[]) => ports.length > 1 || (ports.length === 1 && ports[0] !== "source");

export function cardHeight(ports: string[]): number {
  return portRows(ports) ? HEAD_HEIGHT + ports.length * PORT_ROW + 8 : HEAD_HEIGHT + 30;
}

/** The size of a card that is not a container. */
export function cardSize(n: WfNode, ports: Record<string, string[]>): Size {
  return isContainerStartType(n.type)
    ? START_CARD
    : { width: CARD_WIDTH, height: cardHeight(ports[n.id] ?? ["source"]) };
}

const finite = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);

/** The position saved with the node (Dify's `position`, relative to its container), if any. */
export function savedPosition(n: WfNode): Point | undefined {
  const p = n.canvas?.position as Partial<Point> | undefined;
  return p && finite(p.x) && finite(p.y) ? { x: p.x, y: p.y } : undefined;
}

function parentOf(wf: Workflow, n: WfNode): string | undefined {
  return n.parentId && wf.nodes.some((x) => x.id === n.parentId) ? n.parentId : undefined;
}

/**
 * Card sizes, containers sized to hold their body. Dify's saved container size is not used: it was made for
 * Dify's card sizes, and a container drawn larger than its body covers the nodes laid out beside it.
 */
export function sizesOf(
  wf: Workflow,
  ports: Record<string, string[]>,
  pos: Record<string, Point>,
): Record<string, Size> {
  const out: Record<string, Size> = {};
  const size = (n: WfNode): Size => {
    if (out[n.id]) return out[n.id]!;
    if (!isContainerType(n.type)) {
      const card = cardSize(n, ports);
      out[n.id] = card;
      return card;
    }
    let width = CARD_WIDTH + 40;
    let height = 140;
    for (const c of wf.nodes.filter((x) => parentOf(wf, x) === n.id)) {
      const p = pos[c.id];
      if (!p) continue;
      const s = size(c);
      width = Math.max(width, p.x + s.width + CONTAINER_PAD.side);
      height = Math.max(height, p.y + s.height + CONTAINER_PAD.bottom);
    }
    const box = { width, height };
    out[n.id] = box;
    return box;
  };
  for (const n of wf.nodes) size(n);
  return out;
}

/**
 * Layered left-to-right layout of every node. Containers are laid out inside-out: each body is placed first,
 * which fixes the container's size, then its level. Positions are relative to the parent, as React Flow wants.
 */
export async function autoLayout(wf: Workflow, ports: Record<string, string[]>): Promise<Record<string, Point>> {
  const pos: Record<string, Point> = {};
  const dims: Record<string, Size> = {};
  async function level(parent: string | undefined): Promise<Size> {
    const nodes = wf.nodes.filter((n) => parentOf(wf, n) === parent);
    for (const n of nodes) {
      if (isContainerType(n.type)) {
        const inner = await level(n.id);
        dims[n.id] = {
          width: Math.max(CARD_WIDTH + 40, inner.width + CONTAINER_PAD.side * 2),
          height: Math.max(140, inner.height + CONTAINER_PAD.top + CONTAINER_PAD.bottom),
        };
      } else dims[n.id] = cardSize(n, ports);
    }
    const here = new Set(nodes.map((n) => n.id));
    const graph: ElkNode = {
      id: parent ?? "root",
      layoutOptions: {
        "elk.algorithm": "layered",
        "elk.direction": "RIGHT",
        "elk.spacing.nodeNode": String(GAP_Y),
        "elk.layered.spacing.nodeNodeBetweenLayers": String(GAP_X),
        "elk.layered.nodePlacement.strategy": "BRANDES_KOEPF",
      },
      children: nodes.map((n) => ({ id: n.id, ...dims[n.id]! })),
      edges: wf.edges
        .filter((e) => here.has(e.source) && here.has(e.target))
        .map((e, i) => ({ id: `e${i}`, sources: [e.source], targets: [e.target] })),
    };
    const res = await elk.layout(graph);
    let width = 0;
    let height = 0;
    for (const c of res.children ?? []) {
      pos[c.id] = {
        x: (c.x ?? 0) + (parent ? CONTAINER_PAD.side : 0),
        y: (c.y ?? 0) + (parent ? CONTAINER_PAD.top : 0),
      };
      width = Math.max(width, (c.x ?? 0) + dims[c.id]!.width);
      height = Math.max(height, (c.y ?? 0) + dims[c.id]!.height);
    }
    return { width, height };
  }
  await level(undefined);
  return pos;
}
