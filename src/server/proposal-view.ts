/** Proposals as the API shows them: whether each can be applied to the draft now, and what an undo would take out. */
import { type Editing, madeFrom, type UndoCheck } from "../authoring/editing.js";
import type { DraftRecord, ProposalRecord } from "../store/apps.js";
import type { ProposalView, UndoState } from "./api-types.js";

export type { ProposalView, UndoState };

export function proposalView(p: ProposalRecord, draft: DraftRecord, withWorkflow = true): ProposalView {
  const { workflow, baseWorkflow: _base, ...rest } = p;
  const stale = p.status === "pending" && !madeFrom(p, draft);
  return {
    ...rest,
    canApply: p.status === "pending" && !stale && p.newErrors.length === 0 && !p.diff.empty,
    stale,
    ...(withWorkflow ? { workflow } : {}),
  };
}

/** The view of `p` against the draft, judging a proposal made before drafts by its base version's content. */
export async function viewProposal(
  editing: Editing,
  p: ProposalRecord,
  draft: DraftRecord,
  withWorkflow = true,
): Promise<ProposalView> {
  return proposalView(await editing.withPreDraftBase(p), draft, withWorkflow);
}

/** `GET /undo`: the check without the records it was judged on, the proposal an undo takes out as a view. */
export function undoView({ draft, last, revision, available, reason }: UndoCheck): UndoState {
  return {
    revision,
    ...(last ? { proposal: proposalView(last, draft, false) } : {}),
    available,
    ...(reason ? { reason } : {}),
  };
}
