import { api, stream } from "../api";
import type { ProposalDecision, ProposalView, TurnOutcome } from "../types";
import type { ChatEntry } from "./entities";
import { errText } from "./errText";
import { flushDraft } from "./flush";
import type { ChatSlice, Store } from "./state";

/** A chat turn as the server keeps it (GET /api/apps/:id/messages). */
type StoredMessage = {
  role: "user" | "assistant";
  text: string;
  outcome?: TurnOutcome;
  notApplied?: boolean;
  decision?: ProposalDecision;
};
const proposalIdOf = (o?: TurnOutcome) => (o && "proposalId" in o ? o.proposalId : undefined);

/** The open app's chat as the server keeps it, for the chat panel. */
export async function loadChat({ set }: Store, appId: string) {
  const { messages } = await api<{ messages: StoredMessage[] }>(`/api/apps/${appId}/messages`);
  set({
    chat: {
      entries: messages.map((m) => ({
        role: m.role,
        text: m.text,
        ...(m.outcome ? { outcome: m.outcome, notApplied: m.notApplied ?? m.outcome.kind === "rejected" } : {}),
        ...(m.decision ? { decision: m.decision } : {}),
      })),
      busy: false,
    },
  });
}

/** After an apply, reject or undo, each proposing turn shows what became of its proposal (the server knows). */
export async function refreshDecisions({ set, get }: Store) {
  const app = get().app;
  if (!app) return;
  const { messages } = await api<{ messages: StoredMessage[] }>(`/api/apps/${app.id}/messages`);
  const byProposal = new Map(
    messages.flatMap((m) =>
      m.decision && proposalIdOf(m.outcome) ? [[proposalIdOf(m.outcome)!, m.decision] as const] : [],
    ),
  );
  if (get().app?.id !== app.id) return;
  set((s) => ({
    chat: {
      ...s.chat,
      entries: s.chat.entries.map((e) => {
        const d = byProposal.get(proposalIdOf(e.outcome) ?? "");
        return d ? { ...e, decision: d } : e;
      }),
    },
  }));
}

export function chatSlice(store: Store): ChatSlice {
  const { set, get } = store;
  /** The turn's final reply carries what really happened; a reply claiming a change that was not made is marked. */
  const markOutcome = (reply: string, outcome: TurnOutcome, notApplied: boolean) =>
    set((s) => {
      const entries = [...s.chat.entries];
      let i = entries.length - 1;
      while (i >= 0 && entries[i]!.role !== "assistant" && entries[i]!.role !== "user") i--;
      if (i >= 0 && entries[i]!.role === "assistant" && entries[i]!.text === reply)
        entries[i] = { ...entries[i]!, outcome, notApplied };
      else entries.push({ role: "assistant", text: reply, outcome, notApplied });
      return { chat: { ...s.chat, entries } };
    });
  const push = (entry: ChatEntry) => set((s) => ({ chat: { ...s.chat, entries: [...s.chat.entries, entry] } }));
  // The chat's SSE events, one shape per `type` (src/server/routes/chat.ts).
  const onEvent = async (ev: any) => {
    if (ev.type === "tool_execution") push({ role: "tool", text: `→ ${ev.tool}` });
    else if (ev.type === "tool_result") push({ role: "tool", text: `${ev.ok ? "✓" : "✗"} ${ev.tool}` });
    else if (ev.type === "message") push({ role: "assistant", text: ev.text });
    else if (ev.type === "error") push({ role: "error", text: `${ev.code}: ${ev.message}` });
    else if (ev.type === "superseded") {
      if ((ev.proposals as string[]).includes(get().review?.proposal.id ?? "")) set({ review: undefined });
    } else if (ev.type === "proposal") await get().openProposal(ev.proposal as ProposalView);
    else if (ev.type === "done") markOutcome(ev.reply as string, ev.outcome as TurnOutcome, ev.notApplied === true);
  };

  return {
    chat: { entries: [], busy: false },
    async sendChat(text) {
      const app = get().app;
      if (!app || get().chat.busy) return;
      set((s) => ({ chat: { entries: [...s.chat.entries, { role: "user", text }], busy: true } }));
      try {
        // The agent edits the server draft: it must hold the edits made just before asking.
        await flushDraft();
        // No `apply`: the change is a proposal the user reviews on the canvas before anything changes.
        await stream(`/api/apps/${app.id}/chat`, onEvent, { json: { message: text } });
      } catch (e) {
        push({ role: "error", text: errText(e) });
      } finally {
        set((s) => ({ chat: { ...s.chat, busy: false } }));
      }
    },
  };
}
