import { BaseEdge, EdgeLabelRenderer, type EdgeProps, getBezierPath } from "@xyflow/react";
import { useState } from "react";
import type { WfEdge } from "../types";
import { addNode } from "./addNode";
import { NodePalette } from "./NodePalette";

export interface InsertEdgeData extends Record<string, unknown> {
  edge: WfEdge;
}

/** An edge with Dify's "+" at its middle: it opens the palette, and the node picked is wired in between. */
export function InsertEdge(p: EdgeProps) {
  const [path, labelX, labelY] = getBezierPath(p);
  const [open, setOpen] = useState(false);
  const { edge } = p.data as InsertEdgeData;
  const at = { transform: `translate(-50%, -50%) translate(${labelX}px, ${labelY}px)` };
  return (
    <>
      <BaseEdge id={p.id} path={path} markerEnd={p.markerEnd} style={p.style} />
      <EdgeLabelRenderer>
        <button
          type="button"
          className="edge-insert nodrag nopan"
          style={at}
          title="Insert a node here"
          aria-label={`insert a node between ${edge.source} and ${edge.target}`}
          data-testid={`edge-insert-${edge.source}-${edge.target}`}
          onClick={() => setOpen((o) => !o)}
        >
          +
        </button>
        {open && (
          <div
            className="edge-palette nodrag nopan nowheel"
            style={{ transform: `translate(${labelX + 14}px, ${labelY}px)` }}
          >
            <NodePalette
              onClose={() => setOpen(false)}
              onPick={(type) => {
                setOpen(false);
                void addNode(type, { intoEdge: edge });
              }}
            />
          </div>
        )}
      </EdgeLabelRenderer>
    </>
  );
}
