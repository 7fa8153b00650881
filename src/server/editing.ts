/**
 * Every AI change is a proposal: stored against the version it was made from, shown with its diff and
 * diagnostics, then applied (a new version) or rejected (nothing changes); undo restores the version a
 * change was made from, as a new version. One implementation for the HTTP API and `weft chat`.
 */
import { historyMessages, type RememberedTurn, type TurnOutcome } from "../agent/outcome.js";
import { makeProposal } from "../agent/proposal.js";
import type { ChatMessage } from "../ir/services.js";
import type { Workflow } from "../ir/workflow.js";
import { ApiError } from "./errors.js";
import type { AppStore, ProposalRecord, VersionRecord } from "../store/apps.js";

export interface ProposalView extends Omit<ProposalRecord, "workflow"> {
  /** Pending, made from the current version, with changes and no new errors. */
  canApply: boolean;
  /** The app moved on since the proposal was made: applying it would lose the newer versions. */
  stale: boolean;
  workflow?: Workflow;
}

export function proposalView(p: ProposalRecord, currentVersion: number, withWorkflow = true): ProposalView {
  const { workflow, ...rest } = p;
  const stale = p.status === "pending" && p.baseVersion !== currentVersion;
  return {
    ...rest,
    canApply: p.status === "pending" && !stale && p.newErrors.length === 0 && !p.diff.empty,
    stale,
    ...(withWorkflow ? { workflow } : {}),
  };
}

export class Editing {
  constructor(private readonly apps: AppStore) {}

  private async current(appId: string): Promise<VersionRecord> {
    const v = await this.apps.current(appId);
    if (!v) throw new ApiError(404, "app.not_found", `no app with id ${appId}`);
    return v;
  }

  private async find(appId: string, id: string): Promise<ProposalRecord> {
    const p = await this.apps.proposal(appId, id);
    if (!p) throw new ApiError(404, "proposal.not_found", `app ${appId} has no proposal ${id}`);
    return p;
  }

  /** Pending proposals are dropped when a newer one is made (or the app is undone): at most one is open. */
  async supersedePending(appId: string): Promise<string[]> {
    const pending = await this.apps.proposals(appId, "pending");
    for (const p of pending) await this.apps.decideProposal(appId, p.id, "superseded");
    return pending.map((p) => p.id);
  }

  async propose(appId: string, base: VersionRecord, workflow: Workflow, meta: { source: string; instruction?: string }): Promise<ProposalRecord> {
    await this.supersedePending(appId);
    const p = makeProposal(base.workflow, workflow);
    return this.apps.createProposal({
      appId,
      baseVersion: base.version,
      source: meta.source,
      instruction: meta.instruction ?? "",
      workflow,
      diff: p.diff,
      diagnostics: p.diagnostics,
      newErrors: p.newErrors,
      summary: p.summary,
    });
  }

  async apply(appId: string, id: string): Promise<{ proposal: ProposalRecord; version: VersionRecord }> {
    const p = await this.find(appId, id);
    if (p.status !== "pending") throw new ApiError(409, "proposal.decided", `proposal ${id} was already ${p.status}; nothing changed`);
    if (p.newErrors.length > 0)
      throw new ApiError(422, "proposal.invalid", `proposal ${id} brings ${p.newErrors.length} new error(s); nothing changed`, p.newErrors);
    if (p.diff.empty) throw new ApiError(409, "proposal.empty", `proposal ${id} changes nothing`);
    const cur = await this.current(appId);
    if (cur.version !== p.baseVersion)
      throw new ApiError(409, "proposal.stale", `proposal ${id} was made from version ${p.baseVersion}, but the app is at version ${cur.version}; nothing changed. Ask again to get a proposal for the current version`);
    const note = `${p.summary}${p.instruction ? ` — ${p.instruction.slice(0, 160)}` : ""}`;
    const version = await this.apps.applyProposal(appId, id, note);
    if (!version) throw new ApiError(409, "proposal.stale", `proposal ${id} was decided or the app changed meanwhile; nothing changed`);
    return { proposal: (await this.find(appId, id))!, version };
  }

  async reject(appId: string, id: string): Promise<ProposalRecord> {
    const p = await this.find(appId, id);
    if (!(await this.apps.decideProposal(appId, id, "rejected")))
      throw new ApiError(409, "proposal.decided", `proposal ${id} was already ${p.status}`);
    return this.find(appId, id);
  }

  /**
   * Restore the version the current state was made from. Repeated undos walk back: an undo version
   * stands for the version it restored, so the next undo restores that one's parent.
   */
  async undo(appId: string): Promise<{ version: VersionRecord; restored: number }> {
    const cur = await this.current(appId);
    const state = cur.restores !== undefined ? await this.apps.version(appId, cur.restores) : cur;
    // Versions stored before versions recorded their parent came from the one before them.
    const target = state?.parent ?? (state && state.version > 1 ? state.version - 1 : undefined);
    const from = target !== undefined ? await this.apps.version(appId, target) : undefined;
    if (!from) throw new ApiError(409, "undo.nothing", `version ${cur.version} is where this app started; there is nothing to undo`);
    await this.supersedePending(appId);
    const version = await this.apps.addVersion(appId, from.workflow, "undo", `undo: restores version ${from.version}`, { parent: cur.version, restores: from.version });
    return { version, restored: from.version };
  }

  async restore(appId: string, v: number): Promise<VersionRecord> {
    const from = await this.apps.version(appId, v);
    if (!from) throw new ApiError(404, "version.not_found", `app ${appId} has no version ${v}`);
    await this.supersedePending(appId);
    return this.apps.addVersion(appId, from.workflow, "restore", `restores version ${v}`, { restores: v });
  }

  /** Store a finished turn (the user's message was stored when it came in). */
  async remember(appId: string, reply: string, outcome: TurnOutcome, extra: { proposalId?: string; version?: number } = {}): Promise<void> {
    await this.apps.addMessage(appId, "assistant", reply, extra.version, { outcome, ...(extra.proposalId ? { proposalId: extra.proposalId } : {}) });
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
        if (p && p.status !== "pending") t.later = p.status === "applied" ? `the user applied it as version ${p.appliedVersion}` : `the user ${p.status === "rejected" ? "rejected it" : "asked for something else instead; it was not applied"}`;
      }
    }
    return historyMessages(turns.slice(-maxTurns));
  }
}
