import { useEffect, useMemo, useRef, useState } from "react";
import type { Review } from "../../store";
import { useStore } from "../../store";
import type { Workflow } from "../../types";
import { type Point, savedPosition } from "../layout";
import { needsPlacing } from "../placement";

/**
 * The nodes' positions, with nodes without a saved position (generated, or from files without canvas data) placed
 * by the layout, and so nodes saved on top of another; a few rounds at most, as a moved body can grow its
 * container into a neighbour. For a read-only role too (placing is not an edit: nothing is saved), but not for a
 * proposal under review.
 */
export function useFlowPlacement(
  draft: Workflow | undefined,
  ports: Record<string, string[]>,
  review: Review | undefined,
  viewNonce: number,
) {
  const { placeMissing } = useStore.getState();
  const positions = useMemo(() => {
    const out: Record<string, Point> = {};
    for (const n of draft?.nodes ?? []) {
      const p = savedPosition(n);
      if (p) out[n.id] = p;
    }
    return out;
  }, [draft]);
  const unplaced = useMemo(() => (draft ? needsPlacing(draft, ports) : []), [draft, ports]);
  // Overlaps are resolved when a workflow is shown and when nodes come or go, never while a card is dragged.
  const placeKey = `${viewNonce}|${draft?.nodes.map((n) => n.id).join(",")}`;
  const placing = useRef({ key: "", rounds: 0, settled: false });
  const [placedRound, setPlacedRound] = useState(0);
  if (placing.current.key !== placeKey) placing.current = { key: placeKey, rounds: 0, settled: false };
  const overlapsPending = unplaced.length > 0 && !review && !placing.current.settled && placing.current.rounds < 3;
  const allPlaced = !!draft && draft.nodes.every((n) => positions[n.id]) && !overlapsPending;
  if (allPlaced) placing.current.settled = true;
  // biome-ignore lint/correctness/useExhaustiveDependencies: placedRound re-runs placement after each round until every node is placed
  useEffect(() => {
    if (!draft || allPlaced || review) return;
    placing.current.rounds++;
    void placeMissing().then(() => setPlacedRound((r) => r + 1));
  }, [draft, allPlaced, review, placeMissing, placedRound]);
  return { positions, allPlaced, placedRound };
}
