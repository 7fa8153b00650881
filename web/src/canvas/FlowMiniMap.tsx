import { MiniMap, useReactFlow } from "@xyflow/react";
import type { CardData } from "./NodeCard";
import { categoryColor } from "./nodeLook";

/** The canvas's overview: cards in their category's colour; a click centres the canvas there. */
export function FlowMiniMap() {
  const { setCenter, getViewport } = useReactFlow();
  return (
    <MiniMap
      pannable
      zoomable
      onClick={(_, p) => void setCenter(p.x, p.y, { zoom: getViewport().zoom, duration: 200 })}
      ariaLabel="minimap"
      nodeColor={(n) =>
        (n.data as CardData).container ? "rgba(11,165,236,0.15)" : categoryColor((n.data as CardData).category)
      }
      nodeStrokeColor={(n) => (n.selected ? "#2f6bff" : "transparent")}
      nodeBorderRadius={6}
      maskColor="rgba(240, 242, 247, 0.6)"
      style={{ width: 220, height: 140 }}
    />
  );
}
