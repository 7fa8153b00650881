import ELK, { type ElkNode } from "elkjs/lib/elk-api.js";
import elkWorkerUrl from "elkjs/lib/elk-worker.min.js?url";
import type { Workflow } from "./types";

// The layout engine runs in a Web Worker so a large graph never blocks the page.
const elk = new ELK({ workerUrl: elkWorkerUrl });

export const CARD_WIDTH = 230;
const PORT_ROW = 20;
const CONTAINER_PAD = { top: 48, side: 24, bottom: 24 };

export const isContainerType = (t: string) => t === "iteration" || t === "loop";

export function cardHeight(ports: number): number {
  return 64 + Math.max(0, ports - 1) * PORT_ROW;
}

export interface Placed {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * Layered left-to-right layout. Containers are laid out inside-out: each body is placed first, which fixes
 * the container's size, then its level is placed. Positions are relative to the parent, as React Flow wants.
 */
export async function layoutWorkflow(wf: Workflow, ports: Record<string, string[]>): Promise<Record<string, Placed>> {
  const out: Record<string, Placed> = {};
  const ids = new Set(wf.nodes.map((n) => n.id));
  const childrenOf = (parent: string | undefined) => wf.nodes.filter((n) => (n.parentId && ids.has(n.parentId) ? n.parentId : undefined) === parent);

  async function level(parent: string | undefined): Promise<{ width: number; height: number }> {
    const nodes = childrenOf(parent);
    for (const n of nodes) {
      if (isContainerType(n.type)) {
        const inner = await level(n.id);
        out[n.id] = {
          x: 0,
          y: 0,
          width: Math.max(CARD_WIDTH + 40, inner.width + CONTAINER_PAD.side * 2),
          height: Math.max(140, inner.height + CONTAINER_PAD.top + CONTAINER_PAD.bottom),
        };
      } else {
        out[n.id] = { x: 0, y: 0, width: CARD_WIDTH, height: cardHeight(ports[n.id]?.length ?? 1) };
      }
    }
    const here = new Set(nodes.map((n) => n.id));
    const graph: ElkNode = {
      id: parent ?? "root",
      layoutOptions: {
        "elk.algorithm": "layered",
        "elk.direction": "RIGHT",
        "elk.spacing.nodeNode": "40",
        "elk.layered.spacing.nodeNodeBetweenLayers": "70",
        "elk.layered.nodePlacement.strategy": "BRANDES_KOEPF",
      },
      children: nodes.map((n) => ({ id: n.id, width: out[n.id]!.width, height: out[n.id]!.height })),
      edges: wf.edges
        .filter((e) => here.has(e.source) && here.has(e.target))
        .map((e, i) => ({ id: `e${i}`, sources: [e.source], targets: [e.target] })),
    };
    const res = await elk.layout(graph);
    let width = 0;
    let height = 0;
    for (const c of res.children ?? []) {
      const p = out[c.id]!;
      p.x = (c.x ?? 0) + (parent ? CONTAINER_PAD.side : 0);
      p.y = (c.y ?? 0) + (parent ? CONTAINER_PAD.top : 0);
      width = Math.max(width, (c.x ?? 0) + p.width);
      height = Math.max(height, (c.y ?? 0) + p.height);
    }
    return { width, height };
  }

  await level(undefined);
  return out;
}
