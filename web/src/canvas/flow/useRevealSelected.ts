import { useReactFlow } from "@xyflow/react";
import { type RefObject, useEffect } from "react";

/** A node selected from outside the canvas (the problem list, the trace) is brought into view. */
export function useRevealSelected(wrapper: RefObject<HTMLDivElement | null>, selected: string | undefined) {
  const { setCenter, getInternalNode, getViewport } = useReactFlow();
  // biome-ignore lint/correctness/useExhaustiveDependencies: wrapper is a ref, read when the selection changes
  useEffect(() => {
    const n = selected ? getInternalNode(selected) : undefined;
    const el = wrapper.current;
    if (!n || !el) return;
    const { x, y, zoom: z } = getViewport();
    const p = n.internals.positionAbsolute;
    const w = n.measured.width ?? 0;
    const h = n.measured.height ?? 0;
    const sx = p.x * z + x;
    const sy = p.y * z + y;
    if (sx >= 0 && sy >= 0 && sx + w * z <= el.clientWidth && sy + h * z <= el.clientHeight) return;
    void setCenter(p.x + w / 2, p.y + h / 2, { zoom: z, duration: 200 });
  }, [selected, getInternalNode, getViewport, setCenter]);
}
