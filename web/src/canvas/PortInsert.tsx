import { createContext, useContext } from "react";
import { addNode } from "./addNode";
import { NodePalette } from "./NodePalette";

/** Where a port's "+" was clicked: the node, its port, and the point (in the canvas area) to open the palette at. */
export interface PortPick {
  id: string;
  port: string;
  x: number;
  y: number;
}

/** Given by an editable canvas only: a read-only one (a proposal under review, a viewer) shows no "+". */
export const PortInsertContext = createContext<((id: string, port: string, button: HTMLElement) => void) | undefined>(
  undefined,
);

/** Dify's "+" on a node's output: opens the palette, and the node picked follows this port, wired from it. */
export function PortAddButton({ nodeId, port, top }: { nodeId: string; port: string; top: number }) {
  const open = useContext(PortInsertContext);
  if (!open) return null;
  return (
    <button
      type="button"
      className="wf-port-add nodrag nopan"
      style={{ top }}
      title="Add a node after this one"
      aria-label={`add a node after ${nodeId} (${port})`}
      data-testid={`port-add-${nodeId}-${port}`}
      onClick={(e) => {
        e.stopPropagation();
        open(nodeId, port, e.currentTarget);
      }}
    >
      +
    </button>
  );
}

/** The palette a port's "+" opened, beside it; the picked node is placed by placement.ts (after the node, pushing on). */
export function PortPalette({ pick, onClose }: { pick: PortPick; onClose: () => void }) {
  return (
    <div className="port-palette" style={{ left: pick.x, top: pick.y }}>
      <NodePalette
        onClose={onClose}
        onPick={(type) => {
          onClose();
          void addNode(type, { after: { id: pick.id, port: pick.port } });
        }}
      />
    </div>
  );
}
