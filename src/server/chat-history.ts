import type { AppStore, ChatMessageRecord, ProposalRecord } from "../store/apps.js";

/** What became of a turn's proposal since the turn: the chat shows this, not the turn's "proposed". */
export interface ProposalDecision {
  status: ProposalRecord["status"];
  appliedRevision?: number;
  appliedVersion?: number;
  undone?: boolean;
}

export function decisionOf(p: ProposalRecord): ProposalDecision {
  return {
    status: p.status,
    ...(p.appliedRevision !== undefined ? { appliedRevision: p.appliedRevision } : {}),
    ...(p.appliedVersion !== undefined ? { appliedVersion: p.appliedVersion } : {}),
    ...(p.undoneAt !== undefined ? { undone: true } : {}),
  };
}

const proposalOf = (m: ChatMessageRecord): string | undefined =>
  m.proposalId ?? (m.outcome && "proposalId" in m.outcome ? m.outcome.proposalId : undefined);

/** The app's chat, each proposing turn with its proposal's decision as it stands now (`decision`). */
export async function chatHistory(
  apps: AppStore,
  appId: string,
): Promise<Array<ChatMessageRecord & { decision?: ProposalDecision }>> {
  const messages = await apps.messages(appId);
  const ids = new Set(messages.flatMap((m) => proposalOf(m) ?? []));
  if (ids.size === 0) return messages;
  const decisions = new Map<string, ProposalDecision>();
  for (const p of await apps.proposals(appId)) if (ids.has(p.id)) decisions.set(p.id, decisionOf(p));
  return messages.map((m) => {
    const d = decisions.get(proposalOf(m) ?? "");
    return d ? { ...m, decision: d } : m;
  });
}
