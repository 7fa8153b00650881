import { useReactFlow } from "@xyflow/react";
import type { DragEvent } from "react";
import { addNode } from "../addNode";
import { PALETTE_DRAG_TYPE } from "../NodePalette";

/** A node type dragged from the palette and dropped on the canvas is added there. */
export function useFlowDrop(readOnly: boolean) {
  const { screenToFlowPosition } = useReactFlow();
  return {
    onDragOver(e: DragEvent) {
      if (readOnly || !e.dataTransfer.types.includes(PALETTE_DRAG_TYPE)) return;
      e.preventDefault();
      e.dataTransfer.dropEffect = "copy";
    },
    onDrop(e: DragEvent) {
      const type = e.dataTransfer.getData(PALETTE_DRAG_TYPE);
      if (readOnly || !type) return;
      e.preventDefault();
      const p = screenToFlowPosition({ x: e.clientX, y: e.clientY });
      // Dropped where the pointer is; placement moves it down if that is on another card.
      void addNode(type, { at: { x: Math.round(p.x), y: Math.round(p.y) } });
    },
  };
}
