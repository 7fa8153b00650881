/**
 * The model's part of a chat turn, behind one signature so the studio's agent and `weft chat`'s generator run
 * the same turn (service.ts): given the conversation and the draft, an author answers with a changed workflow to
 * propose, or with what its turn came to when there is nothing to propose.
 */
import type { ChatMessage } from "../../ir/services.js";
import type { Workflow } from "../../ir/workflow.js";
import type { DraftRecord, ProposalTests, TurnOutcome } from "../../store/apps.js";

export interface TurnRequest {
  message: string;
  /** Earlier turns, each with what it really did and what became of it. */
  history: ChatMessage[];
  /** The draft the turn edits, errors and all: what the user sees in the studio. */
  base: DraftRecord;
  /** Runs the app's tests on a workflow against the draft; absent when there are no services to run workflows. */
  prove?: (workflow: Workflow) => Promise<ProposalTests>;
}

export type Authored =
  /** A change to propose; `tests` when the author already ran the app's tests on this very workflow. */
  | { reply: string; workflow: Workflow; tests?: ProposalTests }
  /** Nothing to propose: an update was rejected, or the answer changes nothing. */
  | { reply: string; outcome: TurnOutcome; notApplied: boolean };

export type Author = (request: TurnRequest) => Promise<Authored>;
