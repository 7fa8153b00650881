import type { Node } from "@xyflow/react";
import { useMemo } from "react";
import { isContainerType, type Point, type Size } from "../layout";
import type { CardData } from "../NodeCard";
import type { FlowContent } from "./useFlowContent";

/** The workflow's nodes as React Flow's cards, parents before their children (React Flow needs that order). */
export function useFlowNodes(
  { draft, ports, diagnostics, statuses, highlights, typeInfo, readOnly }: FlowContent,
  positions: Record<string, Point>,
  sizes: Record<string, Size>,
  selected: string | undefined,
): Node[] {
  return useMemo(() => {
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
}
