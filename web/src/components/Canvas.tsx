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
  applyNodeChanges,
  useReactFlow,
} from "@xyflow/react";
import { useCallback, useEffect, useMemo, useState } from "react";
import { type Placed, isContainerType, layoutWorkflow } from "../layout";
import { useStore } from "../store";
import { type CardData, NodeCard } from "./NodeCard";

const nodeTypes = { card: NodeCard };
const edgeKey = (e: { source: string; sourcePort: string; target: string }) => `${e.source}:${e.sourcePort}→${e.target}`;

function Flow() {
  const draft = useStore((s) => s.draft);
  const ports = useStore((s) => s.ports);
  const diagnostics = useStore((s) => s.diagnostics);
  const statuses = useStore((s) => s.run.statuses);
  const types = useStore((s) => s.nodeTypes);
  const selected = useStore((s) => s.selected);
  const nonce = useStore((s) => s.layoutNonce);
  const { select, setDraft } = useStore.getState();
  const [placed, setPlaced] = useState<Record<string, Placed>>({});
  // React Flow keeps measured handle positions only for nodes that carry `measured`, so it is fed back.
  const [measured, setMeasured] = useState<Record<string, { width: number; height: number }>>({});
  const { fitView } = useReactFlow();
  const idsKey = draft?.nodes.map((n) => n.id).join("|") ?? "";

  useEffect(() => {
    if (!draft) return;
    let live = true;
    void layoutWorkflow(draft, ports).then((p) => {
      if (!live) return;
      setPlaced(p);
      requestAnimationFrame(() => void fitView({ padding: 0.15 }));
    });
    return () => {
      live = false;
    };
    // Lay out again when the node set changes or a new version arrives, not on every config edit.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [nonce, idsKey]);

  const typeInfo = useMemo(() => new Map(types.map((t) => [t.type, t])), [types]);

  const nodes: Node[] = useMemo(() => {
    if (!draft) return [];
    const ids = new Set(draft.nodes.map((n) => n.id));
    // Parents must come before their children for React Flow.
    const depth = (id: string, seen = 0): number => {
      const p = draft.nodes.find((n) => n.id === id)?.parentId;
      return p && ids.has(p) && seen < 10 ? 1 + depth(p, seen + 1) : 0;
    };
    return [...draft.nodes]
      .sort((a, b) => depth(a.id) - depth(b.id))
      .filter((n) => placed[n.id])
      .map((n) => {
        const p = placed[n.id]!;
        const info = typeInfo.get(n.type);
        const container = isContainerType(n.type);
        const data: CardData = {
          node: n,
          ports: ports[n.id] ?? [],
          diagnostics: diagnostics.filter((d) => d.nodeId === n.id),
          status: statuses[n.id],
          category: info?.category ?? "unknown",
          label: info?.label ?? n.type,
          container,
          entry: n.type === "start" || !!info?.containerStart || n.type.startsWith("trigger"),
        };
        return {
          id: n.id,
          type: "card",
          position: { x: p.x, y: p.y },
          data,
          selected: n.id === selected,
          ...(n.parentId && ids.has(n.parentId) ? { parentId: n.parentId, extent: "parent" as const } : {}),
          // Fixed sizes from the layout: React Flow shows a node once it knows its dimensions.
          width: p.width,
          height: p.height,
          ...(measured[n.id] ? { measured: measured[n.id] } : {}),
          style: { width: p.width, height: p.height },
          zIndex: container ? 0 : 1,
        };
      });
  }, [draft, placed, measured, ports, diagnostics, statuses, typeInfo, selected]);

  const edges: Edge[] = useMemo(
    () =>
      (draft?.edges ?? []).map((e) => ({
        id: edgeKey(e),
        source: e.source,
        target: e.target,
        sourceHandle: e.sourcePort,
        targetHandle: "target",
        animated: statuses[e.source] === "succeeded" && statuses[e.target] === "running",
        className: statuses[e.source] && statuses[e.target] && statuses[e.target] !== "skipped" ? "ran" : "",
        zIndex: 2,
      })),
    [draft, statuses],
  );

  const onNodesChange = useCallback((changes: NodeChange[]) => {
    // Only dragging is kept locally; selection and removal go through the store.
    const dims = changes.filter((c) => c.type === "dimensions" && c.dimensions);
    if (dims.length)
      setMeasured((prev) => {
        const out = { ...prev };
        for (const c of dims) if (c.type === "dimensions" && c.dimensions) out[c.id] = c.dimensions;
        return out;
      });
    const moves = changes.filter((c) => c.type === "position" && c.position);
    if (!moves.length) return;
    setPlaced((prev) => {
      const asNodes = Object.entries(prev).map(([id, p]) => ({ id, position: { x: p.x, y: p.y }, data: {}, width: p.width, height: p.height }));
      const next = applyNodeChanges(moves, asNodes as Node[]);
      const out: Record<string, Placed> = { ...prev };
      for (const n of next) out[n.id] = { ...prev[n.id]!, x: n.position.x, y: n.position.y };
      return out;
    });
  }, []);

  const onConnect = useCallback((c: Connection) => {
    const wf = useStore.getState().draft;
    if (!wf || !c.source || !c.target) return;
    const e = { source: c.source, sourcePort: c.sourceHandle ?? "source", target: c.target };
    if (wf.edges.some((x) => edgeKey(x) === edgeKey(e))) return;
    setDraft({ ...wf, edges: [...wf.edges, e] }, false);
  }, []);

  const onDelete = useCallback(({ nodes: dn, edges: de }: { nodes: Node[]; edges: Edge[] }) => {
    const wf = useStore.getState().draft;
    if (!wf) return;
    const gone = new Set(dn.map((n) => n.id));
    const goneEdges = new Set(de.map((e) => e.id));
    setDraft(
      {
        ...wf,
        nodes: wf.nodes.filter((n) => !gone.has(n.id) && !(n.parentId && gone.has(n.parentId))),
        edges: wf.edges.filter((e) => !goneEdges.has(edgeKey(e)) && !gone.has(e.source) && !gone.has(e.target)),
      },
      false,
    );
    if (dn.some((n) => n.id === useStore.getState().selected)) select(undefined);
  }, []);

  return (
    <ReactFlow
      nodes={nodes}
      edges={edges}
      nodeTypes={nodeTypes}
      onNodesChange={onNodesChange}
      onNodeClick={(_, n) => select(n.id)}
      onPaneClick={() => select(undefined)}
      onConnect={onConnect}
      onDelete={onDelete}
      deleteKeyCode={["Delete"]}
      fitView
      minZoom={0.1}
      proOptions={{ hideAttribution: true }}
    >
      <Background gap={16} />
      <MiniMap pannable zoomable />
      <Controls />
    </ReactFlow>
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
