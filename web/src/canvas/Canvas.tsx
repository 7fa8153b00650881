import {
  Background,
  type Connection,
  Controls,
  type Edge,
  MiniMap,
  type Node,
  type NodeChange,
  ReactFlow,
  ReactFlowProvider,
  useStore as useFlowStore,
  useReactFlow,
  useUpdateNodeInternals,
} from "@xyflow/react";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { edgeKey } from "../review/view";
import { type NodeStatus, useStore } from "../store";
import { isContainerType, type Placed, type Point, savedPosition, sizesOf } from "./layout";
import { needsPlacing } from "./placement";
import { addNode } from "./addNode";
import { InsertEdge } from "./InsertEdge";
import { PortInsertContext, type PortPick, PortPalette } from "./PortInsert";
import { PALETTE_DRAG_TYPE } from "./NodePalette";
import { copySelected, duplicateSelected, paste } from "./clipboard";
import { type CardData, NodeCard } from "./NodeCard";
import { categoryColor } from "./nodeLook";
import { detailLevel, FIT_MIN_ZOOM, FIT_PADDING, initialViewport } from "./viewport";

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

const NO_MARKS = {};

function Flow() {
  // A proposal under review takes the draft's place on the canvas, read-only, until it is decided or put aside.
  const review = useStore((s) => (s.review && !s.review.hidden ? s.review : undefined));
  const editDraft = useStore((s) => s.draft);
  const editPorts = useStore((s) => s.ports);
  const editDiagnostics = useStore((s) => s.diagnostics);
  const draft = review ? review.view.workflow : editDraft;
  const ports = review ? review.ports : editPorts;
  const diagnostics = review ? review.proposal.diagnostics : editDiagnostics;
  const highlights: Record<string, string> = review ? review.view.nodes : NO_MARKS;
  const edgeMarks: Record<string, string> = review ? review.view.edges : NO_MARKS;
  const canEdit = useStore((s) => s.can("app.edit"));
  const readOnly = !!review || !canEdit;
  const runStatuses = useStore((s) => s.run.statuses);
  const statuses: Record<string, NodeStatus> = review ? NO_MARKS : runStatuses;
  const types = useStore((s) => s.nodeTypes);
  const selected = useStore((s) => s.selected);
  const viewNonce = useStore((s) => s.viewNonce);
  const { select, setDraft, moveNodes, placeMissing } = useStore.getState();
  const { setViewport, setCenter, getInternalNode, getViewport, screenToFlowPosition } = useReactFlow();
  const updateNodeInternals = useUpdateNodeInternals();
  const wrapper = useRef<HTMLDivElement>(null);
  const zoom = useFlowStore((s) => s.transform[2]);

  const typeInfo = useMemo(() => new Map(types.map((t) => [t.type, t])), [types]);
  const positions = useMemo(() => {
    const out: Record<string, Point> = {};
    for (const n of draft?.nodes ?? []) {
      const p = savedPosition(n);
      if (p) out[n.id] = p;
    }
    return out;
  }, [draft]);
  // Nodes without a saved position (generated, or from files without canvas data) get one from the layout, and so
  // do nodes saved on top of another; a few rounds at most, as a moved body can grow its container into a neighbour.
  // For a read-only role too (placing is not an edit: nothing is saved), but not for a proposal under review.
  const unplaced = useMemo(() => (draft ? needsPlacing(draft, ports) : []), [draft, ports]);
  // Overlaps are resolved when a workflow is shown and when nodes come or go, never while a card is dragged.
  const placeKey = `${viewNonce}|${draft?.nodes.map((n) => n.id).join(",")}`;
  const placing = useRef({ key: "", rounds: 0, settled: false });
  const [placedRound, setPlacedRound] = useState(0);
  if (placing.current.key !== placeKey) placing.current = { key: placeKey, rounds: 0, settled: false };
  const overlapsPending = unplaced.length > 0 && !review && !placing.current.settled && placing.current.rounds < 3;
  const allPlaced = !!draft && draft.nodes.every((n) => positions[n.id]) && !overlapsPending;
  if (allPlaced) placing.current.settled = true;
  useEffect(() => {
    if (!draft || allPlaced || review) return;
    placing.current.rounds++;
    void placeMissing().then(() => setPlacedRound((r) => r + 1));
  }, [draft, allPlaced, review, placeMissing, placedRound]);

  const sizes = useMemo(() => (draft ? sizesOf(draft, ports, positions) : {}), [draft, ports, positions]);

  // Handles follow the ports; React Flow must re-measure a node whose ports changed, or its edges vanish.
  const portsKey = JSON.stringify(ports);
  useEffect(() => {
    const ids = Object.keys(ports);
    if (ids.length) requestAnimationFrame(() => updateNodeInternals(ids));
  }, [portsKey, updateNodeInternals]);

  // The first view of each loaded workflow: readable, never a fit that shrinks text out of sight.
  const viewed = useRef(-1);
  const [viewReady, setViewReady] = useState(-1);
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
    for (const n of draft.nodes) if (!n.parentId) boxes[n.id] = { ...abs(n.id), ...(sizes[n.id] ?? { width: 0, height: 0 }) };
    const entryNode = draft.nodes.find((n) => n.type === "start" || typeInfo.get(n.type)?.entry) ?? draft.nodes.find((n) => !draft.edges.some((e) => e.target === n.id));
    const { clientWidth, clientHeight } = wrapper.current;
    void setViewport(initialViewport(Object.values(boxes), entryNode ? boxes[entryNode.id] : undefined, clientWidth, clientHeight)).then(() => setViewReady(viewNonce));
  }, [draft, allPlaced, viewNonce, positions, sizes, typeInfo, setViewport, placedRound]);

  // Ctrl/⌘ + C, V, D: copy, paste, duplicate the selected node; Z / Shift+Z (or Y): undo, redo — not while
  // typing in a field, where the browser's own undo of the text applies.
  useEffect(() => {
    if (readOnly) return;
    const onKey = (e: KeyboardEvent) => {
      const t = e.target as HTMLElement | null;
      if (!(e.ctrlKey || e.metaKey) || e.altKey || (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName)))) return;
      const key = e.key.toLowerCase();
      if (key === "z" || key === "y") {
        e.preventDefault();
        if (key === "y" || e.shiftKey) useStore.getState().redoEdit();
        else useStore.getState().undoEdit();
        return;
      }
      // Text selected on the page is the user's to copy.
      if (window.getSelection()?.toString()) return;
      const done = key === "c" ? copySelected() : key === "v" ? paste() : key === "d" ? duplicateSelected() : false;
      if (done) e.preventDefault();
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [readOnly]);

  // A node selected from outside the canvas (the problem list, the trace) is brought into view.
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

  const nodes: Node[] = useMemo(() => {
    if (!draft) return [];
    const ids = new Set(draft.nodes.map((n) => n.id));
    const depth = (id: string, seen = 0): number => {
      const p = draft.nodes.find((n) => n.id === id)?.parentId;
      return p && ids.has(p) && seen < 10 ? 1 + depth(p, seen + 1) : 0;
    };
    // Parents must come before their children for React Flow.
    return [...draft.nodes]
      .sort((a, b) => depth(a.id) - depth(b.id))
      .filter((n) => positions[n.id])
      .map((n) => {
        const info = typeInfo.get(n.type);
        const container = isContainerType(n.type);
        const size = sizes[n.id]!;
        const data: CardData = {
          node: n,
          workflow: draft,
          ports: ports[n.id] ?? ["source"],
          diagnostics: diagnostics.filter((d) => d.nodeId === n.id),
          status: statuses[n.id],
          highlight: highlights[n.id] as CardData["highlight"],
          category: info?.category ?? "unknown",
          label: info?.label ?? n.type,
          container,
          entry: n.type === "start" || !!info?.containerStart || n.type.startsWith("trigger"),
        };
        return {
          id: n.id,
          type: "card",
          position: positions[n.id]!,
          data,
          selected: n.id === selected,
          draggable: !readOnly && n.canvas?.draggable !== false,
          ...(n.parentId && ids.has(n.parentId) ? { parentId: n.parentId, extent: "parent" as const } : {}),
          width: size.width,
          height: size.height,
          style: { width: size.width, height: size.height },
          zIndex: container ? 0 : 1,
        };
      });
  }, [draft, positions, sizes, ports, diagnostics, statuses, highlights, typeInfo, selected, readOnly]);

  const edges: Edge[] = useMemo(
    () =>
      (draft?.edges ?? []).map((e) => ({
        id: edgeKey(e),
        source: e.source,
        target: e.target,
        ...(readOnly ? {} : { type: "insert", data: { edge: e } }),
        sourceHandle: e.sourcePort,
        targetHandle: "target",
        animated: statuses[e.source] === "succeeded" && statuses[e.target] === "running",
        className: edgeMarks[edgeKey(e)] ? `edge-${edgeMarks[edgeKey(e)]}` : statuses[e.source] && statuses[e.target] && statuses[e.target] !== "skipped" ? "ran" : "",
        ...(edgeMarks[edgeKey(e)] ? { ariaLabel: `edge ${edgeMarks[edgeKey(e)]}: ${e.source} → ${e.target}` } : {}),
        // No zIndex: edges stay under the cards (React Flow lifts edges between a container's children to the
        // children's level itself, so they still show above the container).
      })),
    [draft, statuses, edgeMarks, readOnly],
  );

  // A port's "+" opens the palette beside it, in the canvas area's coordinates.
  const [portPick, setPortPick] = useState<PortPick>();
  const openPortPalette = useCallback((id: string, port: string, button: HTMLElement) => {
    const area = wrapper.current?.getBoundingClientRect();
    const b = button.getBoundingClientRect();
    if (!area) return;
    setPortPick((p) => (p?.id === id && p.port === port ? undefined : { id, port, x: b.right - area.left + 6, y: b.top - area.top }));
  }, []);
  useEffect(() => setPortPick(undefined), [viewNonce, readOnly]);

  // Each drag is one undo step, however many frames it writes.
  const drags = useRef(0);
  const onNodesChange = useCallback(
    (changes: NodeChange[]) => {
      // Dragging writes the position into the draft (saved with the next version); React Flow owns nothing else.
      if (readOnly) return;
      const moved: Record<string, Point> = {};
      for (const c of changes) if (c.type === "position" && c.position && c.dragging !== undefined) moved[c.id] = { x: Math.round(c.position.x), y: Math.round(c.position.y) };
      if (Object.keys(moved).length) moveNodes(moved, true, `drag:${drags.current}`);
    },
    [moveNodes, readOnly],
  );

  const onConnect = useCallback(
    (c: Connection) => {
      const wf = useStore.getState().draft;
      if (!wf || !c.source || !c.target) return;
      const e = { source: c.source, sourcePort: c.sourceHandle ?? "source", target: c.target };
      if (wf.edges.some((x) => edgeKey(x) === edgeKey(e))) return;
      setDraft({ ...wf, edges: [...wf.edges, e] });
    },
    [setDraft],
  );

  const onDelete = useCallback(
    ({ nodes: dn, edges: de }: { nodes: Node[]; edges: Edge[] }) => {
      const wf = useStore.getState().draft;
      if (!wf) return;
      const gone = new Set(dn.map((n) => n.id));
      const goneEdges = new Set(de.map((e) => e.id));
      setDraft({
        ...wf,
        nodes: wf.nodes.filter((n) => !gone.has(n.id) && !(n.parentId && gone.has(n.parentId))),
        edges: wf.edges.filter((e) => !goneEdges.has(edgeKey(e)) && !gone.has(e.source) && !gone.has(e.target)),
      });
      if (dn.some((n) => n.id === useStore.getState().selected)) select(undefined);
    },
    [setDraft, select],
  );

  return (
    <div
      ref={wrapper}
      data-view={viewReady === viewNonce ? "ready" : "pending"}
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
        onDragOver={(e) => {
          if (readOnly || !e.dataTransfer.types.includes(PALETTE_DRAG_TYPE)) return;
          e.preventDefault();
          e.dataTransfer.dropEffect = "copy";
        }}
        onDrop={(e) => {
          const type = e.dataTransfer.getData(PALETTE_DRAG_TYPE);
          if (readOnly || !type) return;
          e.preventDefault();
          const p = screenToFlowPosition({ x: e.clientX, y: e.clientY });
          // Dropped where the pointer is; placement moves it down if that is on another card.
          void addNode(type, { at: { x: Math.round(p.x), y: Math.round(p.y) } });
        }}
        onNodesChange={onNodesChange}
        onNodeDragStart={() => drags.current++}
        onNodeClick={(_, n) => select(n.id)}
        onPaneClick={() => {
          select(undefined);
          setPortPick(undefined);
        }}
        onMoveStart={(e) => e && setPortPick(undefined)}
        onConnect={readOnly ? undefined : onConnect}
        onDelete={readOnly ? undefined : onDelete}
        nodesConnectable={!readOnly}
        deleteKeyCode={readOnly ? null : ["Delete", "Backspace"]}
        minZoom={FIT_MIN_ZOOM}
        maxZoom={2}
        proOptions={{ hideAttribution: true }}
      >
        <Background gap={16} />
        <MiniMap
          pannable
          zoomable
          onClick={(_, p) => void setCenter(p.x, p.y, { zoom: getViewport().zoom, duration: 200 })}
          ariaLabel="minimap"
          nodeColor={(n) => ((n.data as CardData).container ? "rgba(11,165,236,0.15)" : categoryColor((n.data as CardData).category))}
          nodeStrokeColor={(n) => (n.selected ? "#2f6bff" : "transparent")}
          nodeBorderRadius={6}
          maskColor="rgba(240, 242, 247, 0.6)"
          style={{ width: 220, height: 140 }}
        />
        {/* Fit shows the whole flow; the cards' level of detail keeps what text they show legible. */}
        <Controls showInteractive={false} fitViewOptions={{ padding: FIT_PADDING, maxZoom: 1, minZoom: FIT_MIN_ZOOM }} />
        <ZoomReadout />
      </ReactFlow>
      </PortInsertContext.Provider>
      {portPick && !readOnly && <PortPalette pick={portPick} onClose={() => setPortPick(undefined)} />}
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
