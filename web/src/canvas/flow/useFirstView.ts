import { useReactFlow } from "@xyflow/react";
import { type RefObject, useEffect, useRef, useState } from "react";
import type { NodeTypeInfo, Workflow } from "../../types";
import type { Placed, Point, Size } from "../layout";
import { initialViewport } from "../viewport";

interface FirstViewInput {
  draft: Workflow | undefined;
  allPlaced: boolean;
  viewNonce: number;
  positions: Record<string, Point>;
  sizes: Record<string, Size>;
  typeInfo: Map<string, NodeTypeInfo>;
  placedRound: number;
}

/**
 * The first view of each loaded workflow: readable, never a fit that shrinks text out of sight. Answers whether
 * the view of the current `viewNonce` has been set.
 */
export function useFirstView(
  wrapper: RefObject<HTMLDivElement | null>,
  { draft, allPlaced, viewNonce, positions, sizes, typeInfo, placedRound }: FirstViewInput,
): boolean {
  const { setViewport } = useReactFlow();
  const viewed = useRef(-1);
  const [viewReady, setViewReady] = useState(-1);
  // biome-ignore lint/correctness/useExhaustiveDependencies: wrapper is a ref, read when the view is set; placedRound retries the first view after each placement round
  useEffect(() => {
    if (!draft || !allPlaced || viewed.current === viewNonce || !wrapper.current) return;
    viewed.current = viewNonce;
    const abs = (id: string, depth = 0): Point => {
      const n = draft.nodes.find((x) => x.id === id);
      const p = positions[id] ?? { x: 0, y: 0 };
      const parent = n?.parentId && positions[n.parentId] && depth < 10 ? abs(n.parentId, depth + 1) : { x: 0, y: 0 };
      return { x: p.x + parent.x, y: p.y + parent.y };
    };
    const boxes: Record<string, Placed> = {};
    for (const n of draft.nodes)
      if (!n.parentId) boxes[n.id] = { ...abs(n.id), ...(sizes[n.id] ?? { width: 0, height: 0 }) };
    const entryNode =
      draft.nodes.find((n) => n.type === "start" || typeInfo.get(n.type)?.entry) ??
      draft.nodes.find((n) => !draft.edges.some((e) => e.target === n.id));
    const { clientWidth, clientHeight } = wrapper.current;
    void setViewport(
      initialViewport(Object.values(boxes), entryNode ? boxes[entryNode.id] : undefined, clientWidth, clientHeight),
    ).then(() => setViewReady(viewNonce));
  }, [draft, allPlaced, viewNonce, positions, sizes, typeInfo, setViewport, placedRound]);
  return viewReady === viewNonce;
}
