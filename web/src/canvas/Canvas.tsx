import { Background, Controls, ReactFlow, ReactFlowProvider, useStore as useFlowStore } from "@xyflow/react";
import { useMemo, useRef } from "react";
import { useStore } from "../store";
import { FlowMiniMap } from "./FlowMiniMap";
import { useFirstView } from "./flow/useFirstView";
import { useFlowContent } from "./flow/useFlowContent";
import { useFlowDrop } from "./flow/useFlowDrop";
import { useFlowEdges } from "./flow/useFlowEdges";
import { useFlowEditing } from "./flow/useFlowEditing";
import { useFlowKeyboard } from "./flow/useFlowKeyboard";
import { useFlowNodes } from "./flow/useFlowNodes";
import { useFlowPlacement } from "./flow/useFlowPlacement";
import { usePortPick } from "./flow/usePortPick";
import { usePortRemeasure } from "./flow/usePortRemeasure";
import { useRevealSelected } from "./flow/useRevealSelected";
import { InsertEdge } from "./InsertEdge";
import { sizesOf } from "./layout";
import { NodeCard } from "./NodeCard";
import { PortInsertContext, PortPalette } from "./PortInsert";
import { detailLevel, FIT_MIN_ZOOM, FIT_PADDING } from "./viewport";

const nodeTypes = { card: NodeCard };
const edgeTypes = { insert: InsertEdge };

function ZoomReadout() {
  const zoom = useFlowStore((s) => s.transform[2]);
  return (
    <div className="zoom-readout" data-testid="zoom">
      {Math.round(zoom * 100)}%
    </div>
  );
}

function Flow() {
  const content = useFlowContent();
  const { review, draft, ports, readOnly } = content;
  const selected = useStore((s) => s.selected);
  const viewNonce = useStore((s) => s.viewNonce);
  const { select } = useStore.getState();
  const wrapper = useRef<HTMLDivElement>(null);
  const zoom = useFlowStore((s) => s.transform[2]);

  const { positions, allPlaced, placedRound } = useFlowPlacement(draft, ports, review, viewNonce);
  const sizes = useMemo(() => (draft ? sizesOf(draft, ports, positions) : {}), [draft, ports, positions]);
  usePortRemeasure(ports);
  const viewReady = useFirstView(wrapper, {
    draft,
    allPlaced,
    viewNonce,
    positions,
    sizes,
    typeInfo: content.typeInfo,
    placedRound,
  });
  useFlowKeyboard(readOnly);
  useRevealSelected(wrapper, selected);
  const nodes = useFlowNodes(content, positions, sizes, selected);
  const edges = useFlowEdges(content);
  const { portPick, openPortPalette, closePortPalette } = usePortPick(wrapper, viewNonce, readOnly);
  const editing = useFlowEditing(readOnly);
  const drop = useFlowDrop(readOnly);

  return (
    <div
      ref={wrapper}
      data-view={viewReady ? "ready" : "pending"}
      data-view-nonce={viewNonce}
      data-detail={detailLevel(zoom)}
      data-review={review ? review.proposal.id : ""}
      className={`flow-wrap lod-${detailLevel(zoom)} ${review ? "reviewing" : ""}`}
      style={{ "--zoom": zoom } as React.CSSProperties}
    >
      <PortInsertContext.Provider value={readOnly ? undefined : openPortPalette}>
        <ReactFlow
          nodes={nodes}
          edges={edges}
          nodeTypes={nodeTypes}
          edgeTypes={edgeTypes}
          {...drop}
          {...editing}
          onNodeClick={(_, n) => select(n.id)}
          onPaneClick={() => {
            select(undefined);
            closePortPalette();
          }}
          onMoveStart={(e) => e && closePortPalette()}
          nodesConnectable={!readOnly}
          deleteKeyCode={readOnly ? null : ["Delete", "Backspace"]}
          minZoom={FIT_MIN_ZOOM}
          maxZoom={2}
          proOptions={{ hideAttribution: true }}
        >
          <Background gap={16} />
          <FlowMiniMap />
          {/* Fit shows the whole flow; the cards' level of detail keeps what text they show legible. */}
          <Controls
            showInteractive={false}
            fitViewOptions={{ padding: FIT_PADDING, maxZoom: 1, minZoom: FIT_MIN_ZOOM }}
          />
          <ZoomReadout />
        </ReactFlow>
      </PortInsertContext.Provider>
      {portPick && !readOnly && <PortPalette pick={portPick} onClose={closePortPalette} />}
    </div>
  );
}

export function Canvas() {
  return (
    <div className="canvas" data-testid="canvas">
      <ReactFlowProvider>
        <Flow />
      </ReactFlowProvider>
    </div>
  );
}
