import type { Connection, Edge, Node, NodeChange } from "@xyflow/react";
import { useCallback, useRef } from "react";
import { edgeKey } from "../../review/view";
import { useStore } from "../../store";
import type { Point } from "../layout";

/** The canvas's edits of the draft: dragging cards, connecting ports, deleting nodes and edges. */
export function useFlowEditing(readOnly: boolean) {
  const { select, setDraft, moveNodes } = useStore.getState();
  // Each drag is one undo step, however many frames it writes.
  const drags = useRef(0);
  const onNodeDragStart = useCallback(() => drags.current++, []);
  const onNodesChange = useCallback(
    (changes: NodeChange[]) => {
      // Dragging writes the position into the draft (saved with the next version); React Flow owns nothing else.
      if (readOnly) return;
      const moved: Record<string, Point> = {};
      for (const c of changes)
        if (c.type === "position" && c.position && c.dragging !== undefined)
          moved[c.id] = { x: Math.round(c.position.x), y: Math.round(c.position.y) };
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

  return {
    onNodesChange,
    onNodeDragStart,
    onConnect: readOnly ? undefined : onConnect,
    onDelete: readOnly ? undefined : onDelete,
  };
}
