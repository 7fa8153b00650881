import type { Edge } from "@xyflow/react";
import { useMemo } from "react";
import { edgeKey } from "../../review/view";
import type { FlowContent } from "./useFlowContent";

/** The workflow's edges as React Flow's: marked by a review, animated and coloured by a run. */
export function useFlowEdges({ draft, statuses, edgeMarks, readOnly }: FlowContent): Edge[] {
  return useMemo(
    () =>
      (draft?.edges ?? []).map((e) => ({
        id: edgeKey(e),
        source: e.source,
        target: e.target,
        ...(readOnly ? {} : { type: "insert", data: { edge: e } }),
        sourceHandle: e.sourcePort,
        targetHandle: "target",
        animated: statuses[e.source] === "succeeded" && statuses[e.target] === "running",
        className: edgeMarks[edgeKey(e)]
          ? `edge-${edgeMarks[edgeKey(e)]}`
          : statuses[e.source] && statuses[e.target] && statuses[e.target] !== "skipped"
            ? "ran"
            : "",
        ...(edgeMarks[edgeKey(e)] ? { ariaLabel: `edge ${edgeMarks[edgeKey(e)]}: ${e.source} → ${e.target}` } : {}),
        // No zIndex: edges stay under the cards (React Flow lifts edges between a container's children to the
        // children's level itself, so they still show above the container).
      })),
    [draft, statuses, edgeMarks, readOnly],
  );
}
