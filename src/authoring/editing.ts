/**
 * Every AI change is a proposal: made against the app's draft (its revision and workflow are stored with it),
 * shown with its diff and diagnostics, then applied to the draft or rejected (nothing changes). Published
 * versions are untouched until a publish. Undo takes the last applied proposal back out of the draft. One
 * implementation for the HTTP API and `weft chat`.
 */

import { analyse } from "../analysis/index.js";
import { carryLayout, sameContent } from "../ir/layout.js";
import type { ChatMessage } from "../ir/services.js";
import type { Workflow } from "../ir/workflow.js";
import { nodeCatalogue } from "../nodes/index.js";
import type { AppStore, DraftRecord, ProposalRecord, ProposalTests, TurnOutcome } from "../store/apps.js";
import { sameJson } from "../util/json.js";
import { EditingError } from "./errors.js";
import { historyMessages, type RememberedTurn } from "./outcome.js";
import { makeProposal } from "./proposal.js";

/** Runs the app's tests on a proposed workflow against the draft it was made from (src/apptests/proof.ts). */
export type ProveFn = (appId: string, base: DraftRecord, proposed: Workflow) => Promise<ProposalTests>;

/** Content equality that ignores key order: a workflow read back through the schema may list keys differently. */
const sameWorkflow = sameJson;

/**
 * The draft still holds what the proposal was made from: the same revision, or any revision with the same
 * workflow (a save that changed nothing does not make a proposal stale). A proposal made before drafts has no
 * revision; `withPreDraftBase` gives it its version's workflow to compare.
 */
export function madeFrom(p: ProposalRecord, draft: DraftRecord): boolean {
  if (p.baseRevision !== undefined && p.baseRevision === draft.revision) return true;
  return p.baseWorkflow !== undefined && sameWorkflow(p.baseWorkflow, draft.workflow);
}

/**
 * Whether an undo would take the last applied proposal out of the draft now, and if not, why: `undo.nothing` (no
 * applied proposal left) or `undo.stale` (the draft was edited after it).
 */
export interface UndoCheck {
  /** The draft revision this was judged at: a later save may change the answer. */
  revision: number;
  draft: DraftRecord;
  /** The applied proposal an undo takes out (the last one applied and not undone). */
  last?: ProposalRecord;
  available: boolean;
  reason?: "undo.nothing" | "undo.stale";
}

export class Editing {
  /** Without `prove` (a caller with no services to run workflows), proposals carry no test result. */
  constructor(
    private readonly apps: AppStore,
    readonly prove?: ProveFn,
  ) {}

  /** The draft proposals are made against and applied to. */
  async draft(appId: string): Promise<DraftRecord> {
    const d = await this.apps.draft(appId);
    if (!d) throw new EditingError("app.not_found", `no app with id ${appId}`);
    return d;
  }

  private async find(appId: string, id: string): Promise<ProposalRecord> {
    const p = await this.apps.proposal(appId, id);
    if (!p) throw new EditingError("proposal.not_found", `app ${appId} has no proposal ${id}`);
    return p;
  }

  /** Pending proposals are dropped when a newer one is made (or the app is undone): at most one is open. */
  async supersedePending(appId: string): Promise<string[]> {
    const pending = await this.apps.proposals(appId, "pending");
    for (const p of pending) await this.apps.decideProposal(appId, p.id, "superseded");
    return pending.map((p) => p.id);
  }

  /**
   * A new pending proposal, carrying its test result: `meta.tests` when the caller already tested this workflow
   * (the agent's revision loop), else the app's tests run now. A proposal with new errors is not run.
   */
  async propose(
    appId: string,
    base: DraftRecord,
    workflow: Workflow,
    meta: { source: string; instruction?: string; tests?: ProposalTests },
  ): Promise<ProposalRecord> {
    await this.supersedePending(appId);
    const p = makeProposal(base.workflow, workflow);
    const tests =
      meta.tests ??
      (this.prove && p.newErrors.length === 0 && !p.diff.empty ? await this.prove(appId, base, workflow) : undefined);
    return this.apps.createProposal({
      ...(tests ? { tests } : {}),
      appId,
      baseVersion: base.baseVersion,
      baseRevision: base.revision,
      baseWorkflow: base.workflow,
      source: meta.source,
      instruction: meta.instruction ?? "",
      workflow,
      diff: p.diff,
      diagnostics: p.diagnostics,
      newErrors: p.newErrors,
      summary: p.summary,
    });
  }

  /**
   * A proposal made before drafts existed was made from its base version: its `baseWorkflow` is that version's,
   * so it is judged by content like any other (applicable while the draft still equals that version).
   */
  async withPreDraftBase(p: ProposalRecord): Promise<ProposalRecord> {
    if (p.baseRevision !== undefined || p.baseWorkflow !== undefined) return p;
    const v = await this.apps.version(p.appId, p.baseVersion);
    return v ? { ...p, baseWorkflow: v.workflow } : p;
  }

  /** Write the proposal's workflow into the draft (next revision); refused, changing nothing, when stale. */
  async apply(appId: string, id: string): Promise<{ proposal: ProposalRecord; draft: DraftRecord }> {
    const p = await this.withPreDraftBase(await this.find(appId, id));
    if (p.status !== "pending")
      throw new EditingError("proposal.decided", `proposal ${id} was already ${p.status}; nothing changed`);
    if (p.newErrors.length > 0)
      throw new EditingError(
        "proposal.invalid",
        `proposal ${id} brings ${p.newErrors.length} new error(s); nothing changed`,
        p.newErrors,
      );
    if (p.diff.empty) throw new EditingError("proposal.empty", `proposal ${id} changes nothing`);
    const draft = await this.draft(appId);
    if (!madeFrom(p, draft)) throw staleProposal(p, draft);
    const applied = await this.apps.applyProposal(
      appId,
      id,
      draft.revision,
      analyse(p.workflow, nodeCatalogue).diagnostics,
    );
    if (!applied)
      throw new EditingError(
        "draft.stale",
        `proposal ${id} was decided or the draft was saved meanwhile (it is past revision ${draft.revision}); nothing changed`,
      );
    return { proposal: await this.find(appId, id), draft: applied };
  }

  async reject(appId: string, id: string): Promise<ProposalRecord> {
    const p = await this.find(appId, id);
    if (!(await this.apps.decideProposal(appId, id, "rejected")))
      throw new EditingError("proposal.decided", `proposal ${id} was already ${p.status}`);
    return this.find(appId, id);
  }

  /** What an undo would do now: the last applied proposal not undone, and whether the draft still holds it. */
  async undoState(appId: string): Promise<UndoCheck> {
    const draft = await this.draft(appId);
    const applied = (await this.apps.proposals(appId, "applied")).filter(
      (p) => p.appliedRevision !== undefined && p.undoneAt === undefined,
    );
    const last = applied.sort((a, b) => (b.decidedAt ?? 0) - (a.decidedAt ?? 0))[0];
    const base = { revision: draft.revision, draft };
    if (!last?.baseWorkflow) return { ...base, available: false, reason: "undo.nothing" };
    // Content, not revision or layout: a save that changed nothing, or only moved nodes (the studio placing the
    // nodes an AI change added), leaves the applied proposal undoable.
    if (!sameContent(last.workflow, draft.workflow)) return { ...base, last, available: false, reason: "undo.stale" };
    return { ...base, last, available: true };
  }

  /**
   * Take the last applied proposal back out of the draft: the draft becomes what it was before the apply. Only
   * while the draft still holds what the proposal made, so an edit made after it is never thrown away; repeated
   * undos walk back through earlier applied proposals.
   */
  async undo(appId: string): Promise<{ draft: DraftRecord; undone: ProposalRecord }> {
    const { draft, last, reason } = await this.undoState(appId);
    if (reason === "undo.nothing" || !last?.baseWorkflow)
      throw new EditingError(
        "undo.nothing",
        `no AI change applied to app ${appId}'s draft is left to undo; to go back further, restore a version (Versions, or POST /api/apps/${appId}/versions/N/restore)`,
      );
    if (reason === "undo.stale")
      throw new EditingError(
        "undo.stale",
        `the draft was edited after proposal ${last.id} was applied (it is at revision ${draft.revision}); undoing it would lose those edits, so nothing changed`,
      );
    await this.supersedePending(appId);
    const restored = carryLayout(last.baseWorkflow, draft.workflow);
    const d = await this.apps.undoProposal(
      appId,
      last.id,
      draft.revision,
      analyse(restored, nodeCatalogue).diagnostics,
      restored,
    );
    if (!d)
      throw new EditingError(
        "draft.stale",
        `the draft was saved meanwhile (it is past revision ${draft.revision}); nothing was undone`,
      );
    return { draft: d, undone: await this.find(appId, last.id) };
  }

  /** Make version `v` the draft (next revision); publishing it unchanged then republishes v. */
  async restore(appId: string, v: number): Promise<DraftRecord> {
    await this.draft(appId);
    await this.supersedePending(appId);
    const d = await this.apps.restoreDraft(appId, v);
    if (!d) throw new EditingError("version.not_found", `app ${appId} has no version ${v}`);
    return d;
  }

  /** Store the user's message of a turn as it comes in, before the model answers. */
  async hear(appId: string, message: string): Promise<void> {
    await this.apps.addMessage(appId, "user", message);
  }

  /** Store a finished turn (the user's message was stored when it came in). */
  async remember(
    appId: string,
    reply: string,
    outcome: TurnOutcome,
    extra: { proposalId?: string } = {},
  ): Promise<void> {
    await this.apps.addMessage(appId, "assistant", reply, undefined, {
      outcome,
      ...(extra.proposalId ? { proposalId: extra.proposalId } : {}),
    });
  }

  /** The conversation so far, for the agent: each turn with what it really did and what became of it. */
  async memory(appId: string, maxTurns = 20): Promise<ChatMessage[]> {
    const msgs = await this.apps.messages(appId);
    const proposals = new Map((await this.apps.proposals(appId)).map((p) => [p.id, p]));
    const turns: RememberedTurn[] = [];
    for (const m of msgs) {
      if (m.role === "user") turns.push({ user: m.text, reply: "" });
      else if (turns.length > 0) {
        const t = turns[turns.length - 1]!;
        t.reply = m.text;
        if (m.outcome) t.outcome = m.outcome;
        const p = m.proposalId ? proposals.get(m.proposalId) : undefined;
        if (p && p.status !== "pending")
          t.later =
            p.status === "applied"
              ? appliedNote(p)
              : `the user ${p.status === "rejected" ? "rejected it" : "asked for something else instead; it was not applied"}`;
      }
    }
    return historyMessages(turns.slice(-maxTurns));
  }
}

function appliedNote(p: ProposalRecord): string {
  const applied =
    p.appliedRevision !== undefined
      ? "the user applied it to the draft"
      : `the user applied it as version ${p.appliedVersion}`;
  return p.undoneAt !== undefined ? `${applied}, then undid it` : applied;
}

function staleProposal(p: ProposalRecord, draft: DraftRecord): EditingError {
  if (p.baseRevision === undefined) {
    // Made before drafts existed: it applies only to the draft holding its base version's workflow.
    const why = p.baseWorkflow
      ? `the draft (revision ${draft.revision}) no longer holds version ${p.baseVersion}'s workflow`
      : `version ${p.baseVersion} it was made from no longer exists`;
    return new EditingError(
      "proposal.before_drafts",
      `proposal ${p.id} was made from version ${p.baseVersion} before drafts existed, and ${why}: applying it would lose what differs, so nothing changed. ` +
        `Ask again to get a proposal made from the current draft (its diff shows what it changes there)`,
    );
  }
  return new EditingError(
    "draft.stale",
    `proposal ${p.id} was made from draft revision ${p.baseRevision}, but the draft is at revision ${draft.revision} with other content; nothing changed. Ask again to get a proposal for the current draft`,
  );
}
