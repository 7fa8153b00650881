import type { Point } from "../canvas/layout";
import type { WfNode, Workflow } from "../types";

// Dify files also keep `positionAbsolute`; it moves with the node, and with the container a node sits in.
export function withPositions(wf: Workflow, pos: Record<string, Point>): Workflow {
  const delta: Record<string, Point> = {};
  for (const n of wf.nodes) {
    const old = n.canvas?.position as Point | undefined;
    if (pos[n.id]) delta[n.id] = old ? { x: pos[n.id]!.x - old.x, y: pos[n.id]!.y - old.y } : { x: 0, y: 0 };
  }
  const shift = (n: WfNode): Point => {
    const own = delta[n.id] ?? { x: 0, y: 0 };
    const parent = n.parentId ? wf.nodes.find((x) => x.id === n.parentId) : undefined;
    const up = parent && parent.id !== n.id ? shift(parent) : { x: 0, y: 0 };
    return { x: own.x + up.x, y: own.y + up.y };
  };
  return {
    ...wf,
    nodes: wf.nodes.map((n) => {
      const abs = n.canvas?.positionAbsolute as Point | undefined;
      const d = abs ? shift(n) : { x: 0, y: 0 };
      if (!pos[n.id] && d.x === 0 && d.y === 0) return n;
      const canvas: Record<string, unknown> = { ...(n.canvas ?? {}), ...(pos[n.id] ? { position: pos[n.id] } : {}) };
      if (abs) canvas.positionAbsolute = { x: abs.x + d.x, y: abs.y + d.y };
      return { ...n, canvas };
    }),
  };
}
