import { ApiFailure, api, stream } from "../api";
import type { AttemptRecord, RunEvent } from "../types";
import type { Conversation, NodeStatus, PausedForm, RunState } from "./entities";
import { errText } from "./errText";
import type { RunSlice, Store } from "./state";

export const emptyRun = (): RunState => ({ statuses: {}, events: [], trace: [] });

/** The run panel's state with one more event of the run. */
function withEvent(prev: RunState, ev: RunEvent): RunState {
  const run = { ...prev, events: [...prev.events, ev], statuses: { ...prev.statuses } };
  const id = "nodeId" in ev ? ev.nodeId : undefined;
  if (ev.type === "node_started" && id) run.statuses[id] = "running";
  if (ev.type === "node_finished" && id) run.statuses[id] = ev.status as NodeStatus;
  if (ev.type === "node_skipped" && id) run.statuses[id] = "skipped";
  if (ev.type === "node_paused" && id) run.statuses[id] = "paused";
  if (ev.type === "run_finished") {
    run.status = ev.status;
    run.outputs = ev.outputs as Record<string, unknown>;
    run.error = ev.error;
  }
  return run;
}

async function followRun({ set, get }: Store, runId: string) {
  const after = get().run.events.length - 1;
  set((s) => ({ run: { ...s.run, status: "running", forms: undefined } }));
  await stream(`/api/runs/${runId}/events?after=${after}`, (ev: RunEvent) =>
    set((s) => ({ run: withEvent(s.run, ev) })),
  );
  // A run the server did not start (a test run, `weft run --db`) has no event log: its record says how it ended.
  if (get().run.status === "running") {
    const rec = await api<{ status: string; outputs?: Record<string, unknown>; error?: RunState["error"] }>(
      `/api/runs/${runId}`,
    );
    if (rec.status !== "running")
      set((s) => ({ run: { ...s.run, status: rec.status, outputs: rec.outputs, error: rec.error } }));
  }
  const { trace } = await api<{ trace: AttemptRecord[] }>(`/api/runs/${runId}/trace`);
  set((s) => ({ run: { ...s.run, trace } }));
  if (get().run.status === "paused") {
    const { forms } = await api<{ forms: PausedForm[] }>(`/api/runs/${runId}/forms`);
    set((s) => ({ run: { ...s.run, forms: forms.filter((f) => f.status === "waiting") } }));
  }
}

async function startRun({ set, get }: Store, inputs: Record<string, unknown>, query?: string) {
  const app = get().app;
  // The studio's Run runs the server draft (autosave has saved it before this is called).
  const draft = get().draft;
  if (!app || !draft) return;
  const chat = app.mode === "advanced-chat";
  set({ run: { ...emptyRun(), status: "starting", workflow: draft } });
  if (chat)
    set((s) => ({ conversation: { ...s.conversation, turns: [...s.conversation.turns, { query: query ?? "" }] } }));
  const patchTurn = (t: Partial<Conversation["turns"][number]>) =>
    set((s) => ({
      conversation: {
        ...s.conversation,
        turns: s.conversation.turns.map((x, i) => (i === s.conversation.turns.length - 1 ? { ...x, ...t } : x)),
      },
    }));
  try {
    const body = {
      inputs,
      ...(query !== undefined ? { query } : {}),
      ...(chat && get().conversation.id ? { conversationId: get().conversation.id } : {}),
    };
    const { runId, conversationId } = await api<{ runId: string; conversationId?: string }>(
      `/api/apps/${app.id}/runs`,
      { json: body },
    );
    set((s) => ({
      run: { ...s.run, runId, status: "running" },
      ...(conversationId ? { conversation: { ...s.conversation, id: conversationId } } : {}),
    }));
    if (chat) patchTurn({ runId });
    await get().followRun(runId);
    if (chat) {
      const out = get().run.outputs;
      const { status, error } = get().run;
      patchTurn({
        answer: typeof out?.answer === "string" ? out.answer : undefined,
        status,
        ...(error ? { error: { code: error.code, message: error.message } } : {}),
      });
      if (conversationId) {
        const c = await api<{ variables: Record<string, unknown>; dialogueCount: number }>(
          `/api/apps/${app.id}/conversations/${conversationId}`,
        );
        set((s) => ({ conversation: { ...s.conversation, variables: c.variables, dialogueCount: c.dialogueCount } }));
      }
    }
  } catch (e) {
    set((s) => ({
      run: {
        ...s.run,
        status: "failed",
        error: { code: e instanceof ApiFailure ? e.code : "ui", message: errText(e) },
      },
    }));
    if (chat)
      patchTurn({ status: "failed", error: { code: e instanceof ApiFailure ? e.code : "ui", message: errText(e) } });
  }
}

export function runSlice(store: Store): RunSlice {
  const { set, get } = store;
  return {
    run: emptyRun(),
    conversation: { turns: [] },
    startRun: (inputs, query) => startRun(store, inputs, query),
    followRun: (runId) => followRun(store, runId),
    async answerForm(formId, action, inputs) {
      const runId = get().run.runId;
      if (!runId) return;
      try {
        await api(`/api/runs/${runId}/forms/${formId}`, { json: { action, inputs } });
        await get().followRun(runId);
      } catch (e) {
        get().say("error", `the answer was not taken: ${errText(e)}`);
      }
    },
    newConversation: () => set({ conversation: { turns: [] }, run: emptyRun() }),
  };
}
