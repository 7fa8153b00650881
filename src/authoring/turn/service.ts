/**
 * One chat turn, the same for the studio chat (HTTP API) and `weft chat`: the context is built from the draft and
 * the outcomes of earlier turns, the author (the model's part) answers, a change becomes a proposal (applied
 * when asked), and what really happened is remembered for later turns. Nothing is published.
 */
import type { WorkflowDiff } from "../../ir/diff.js";
import type { Workflow } from "../../ir/workflow.js";
import type { ProposalRecord, ProposalTests, TurnOutcome } from "../../store/apps.js";
import type { Editing } from "../editing.js";
import { proposedOutcome } from "../outcome.js";
import type { Author, TurnRequest } from "./author.js";

/** What the turn stored while it ran: the proposal it made, then (with `apply`) the draft revision it applied it as. */
export type TurnEvent =
  | { type: "proposal"; proposal: ProposalRecord }
  | { type: "applied"; revision: number; diff: WorkflowDiff };

export interface TurnOptions {
  /** Who proposes, as the proposal records it (`agent`, `cli`). */
  source: string;
  /** Apply the proposal to the draft at once. */
  apply?: boolean;
  onEvent?: (e: TurnEvent) => void;
}

export interface TurnResult {
  reply: string;
  /** A proposal was made (and, with `apply`, applied). */
  updated: boolean;
  outcome: TurnOutcome;
  /** The reply claims a change that was not made (a rejected update, or none at all). */
  notApplied: boolean;
  proposal?: ProposalRecord;
  /** The draft's revision after the turn. */
  revision: number;
}

export class ChatTurn {
  private constructor(
    private readonly editing: Editing,
    readonly appId: string,
    readonly request: TurnRequest,
    /** Pending proposals dropped for this turn: at most one proposal is open. */
    readonly superseded: string[],
  ) {}

  /**
   * Starts a turn: pending proposals are dropped, the user's message is stored and the draft read. The memory is
   * read before the message is stored, so it holds earlier turns only.
   */
  static async open(editing: Editing, appId: string, message: string): Promise<ChatTurn> {
    const superseded = await editing.supersedePending(appId);
    const history = await editing.memory(appId);
    await editing.hear(appId, message);
    const base = await editing.draft(appId);
    const prove = editing.prove;
    const request: TurnRequest = {
      message,
      history,
      base,
      ...(prove ? { prove: (wf: Workflow) => prove(appId, base, wf) } : {}),
    };
    return new ChatTurn(editing, appId, request, superseded);
  }

  /** The author answers; a change is proposed (and applied with `apply`); the turn is remembered either way. */
  async run(author: Author, opts: TurnOptions): Promise<TurnResult> {
    const authored = await author(this.request);
    if (!("workflow" in authored)) {
      await this.editing.remember(this.appId, authored.reply, authored.outcome);
      const { reply, outcome, notApplied } = authored;
      return { reply, updated: false, outcome, notApplied, revision: this.request.base.revision };
    }
    const { proposal, outcome, revision } = await this.propose(authored.workflow, authored.tests, opts);
    await this.editing.remember(this.appId, authored.reply, outcome, { proposalId: proposal.id });
    return { reply: authored.reply, updated: true, outcome, notApplied: false, proposal, revision };
  }

  /** The stored proposal states the outcome (its diff and checks, never the model's words). */
  private async propose(workflow: Workflow, tests: ProposalTests | undefined, opts: TurnOptions) {
    const { base, message } = this.request;
    const emit = opts.onEvent ?? (() => {});
    const proposal = await this.editing.propose(this.appId, base, workflow, {
      source: opts.source,
      instruction: message,
      ...(tests ? { tests } : {}),
    });
    emit({ type: "proposal", proposal });
    if (!opts.apply) return { proposal, outcome: proposedOutcome(proposal, proposal.id), revision: base.revision };
    const applied = await this.editing.apply(this.appId, proposal.id);
    const revision = applied.draft.revision;
    emit({ type: "applied", revision, diff: proposal.diff });
    const outcome: TurnOutcome = { kind: "applied", summary: proposal.summary, proposalId: proposal.id, revision };
    return { proposal, outcome, revision };
  }
}
