import { Hono } from "hono";
import { type AgentEvent, type AgentResult, runAgent } from "../../authoring/react.js";
import type { WorkflowDiff } from "../../ir/diff.js";
import type { Workflow } from "../../ir/workflow.js";
import { describeConfigHelp } from "../../llm/index.js";
import type { ProposalTests, TurnOutcome } from "../../store/apps.js";
import { readJson, requireApp, type ServerDeps } from "../context.js";
import { type ProposalView, proposalView } from "../editing.js";
import { ApiError } from "../errors.js";
import { pumpSSE } from "../sse.js";

/**
 * What the chat stream sends: the agent's events; `superseded` when a pending proposal was dropped for
 * this turn; `proposal` when the turn ended with a change (nothing is applied yet); `applied` when it
 * was applied to the draft (only with `apply: true`); and a final `done` saying what really happened.
 */
export type ChatStreamEvent =
  | AgentEvent
  | { type: "superseded"; proposals: string[] }
  | { type: "proposal"; proposal: ProposalView }
  | { type: "applied"; revision: number; diff: WorkflowDiff }
  | {
      type: "done";
      reply: string;
      /** A proposal was made (and, with `apply`, applied). */
      updated: boolean;
      outcome: TurnOutcome;
      /** The reply claims a change that was not made (a rejected update, or none at all). */
      notApplied: boolean;
      proposal: string | null;
      /** The app's newest version (a turn never makes one: proposals apply to the draft). */
      version: number;
      /** The draft's revision after the turn. */
      revision: number;
    };

export function chatRoutes(deps: ServerDeps): Hono {
  const r = new Hono();
  r.post("/:id/chat", async (c) => {
    const app = await requireApp(deps, c.req.param("id"));
    const body = await readJson(c);
    const message = typeof body.message === "string" ? body.message.trim() : "";
    if (!message) throw new ApiError(400, "request.missing_message", "the body needs a non-empty `message` string");
    if (body.apply !== undefined && typeof body.apply !== "boolean")
      throw new ApiError(400, "request.invalid_apply", "`apply` must be true or false");
    const llm = deps.agentLlm;
    if (!llm)
      throw new ApiError(503, "llm.not_configured", `no model is configured for the agent.\n${describeConfigHelp()}`);
    const model =
      typeof body.model === "string" && body.model ? { ...deps.agentModel, name: body.model } : deps.agentModel;

    const queue: ChatStreamEvent[] = [];
    let finished = false;
    let wake = () => {};
    const ctrl = new AbortController();
    const emit = (e: ChatStreamEvent) => {
      queue.push(e);
      wake();
    };
    const superseded = await deps.editing.supersedePending(app.id);
    if (superseded.length) emit({ type: "superseded", proposals: superseded });
    const history = await deps.editing.memory(app.id);
    await deps.apps.addMessage(app.id, "user", message);
    // The agent edits the draft, errors and all: what the user sees in the studio.
    const base = await deps.editing.draft(app.id);
    const version = (await deps.apps.current(app.id))?.version ?? base.baseVersion;

    // The last test result of the agent's change: proposed with it when the agent kept that workflow.
    let tested: { workflow: Workflow; tests: ProposalTests } | undefined;
    const prove = deps.editing.prove;
    const check = prove
      ? async (wf: Workflow) => {
          const tests = await prove(app.id, base, wf);
          tested = { workflow: wf, tests };
          return { ok: tests.failed <= (tests.was?.failed ?? 0), feedback: tests.line };
        }
      : undefined;

    const finish = async (res: AgentResult) => {
      let outcome = res.outcome;
      let proposalId: string | null = null;
      let revision = base.revision;
      if (res.updated && res.workflow) {
        const known = tested?.workflow === res.workflow ? { ...tested.tests, revisions: res.revisions } : undefined;
        const p = await deps.editing.propose(app.id, base, res.workflow, {
          source: "agent",
          instruction: message,
          ...(known ? { tests: known } : {}),
        });
        proposalId = p.id;
        outcome = { ...(outcome as Extract<TurnOutcome, { kind: "proposed" }>), proposalId: p.id };
        emit({ type: "proposal", proposal: proposalView(p, base) });
        if (body.apply === true) {
          const applied = await deps.editing.apply(app.id, p.id);
          revision = applied.draft.revision;
          outcome = { kind: "applied", summary: p.summary, proposalId: p.id, revision };
          emit({ type: "applied", revision, diff: p.diff });
        }
      }
      await deps.editing.remember(app.id, res.reply, outcome, proposalId ? { proposalId } : {});
      emit({
        type: "done",
        reply: res.reply,
        updated: res.updated,
        outcome,
        notApplied: res.notApplied,
        proposal: proposalId,
        version,
        revision,
      });
    };

    const models = deps.llmConfig ? Object.keys(deps.llmConfig.models) : [];
    void runAgent(message, {
      llm,
      model,
      models,
      workflow: base.workflow,
      mode: app.mode,
      history,
      compact: deps.nodeModel ? { llmModel: deps.nodeModel } : {},
      services: deps.services,
      maxIterations: deps.agentMaxIterations,
      signal: ctrl.signal,
      onEvent: emit,
      ...(check ? { check } : {}),
    })
      .then(finish)
      .catch((e) =>
        emit({ type: "error", code: e?.code ?? "agent.error", message: e instanceof Error ? e.message : String(e) }),
      )
      .finally(() => {
        finished = true;
        wake();
      });

    let i = 0;
    return pumpSSE(c, (w) => {
      wake = w;
      return {
        close: () => {
          if (!finished) ctrl.abort(new Error("the client closed the chat stream"));
        },
        pump: async (s) => {
          while (i < queue.length) {
            const ev = queue[i++]!;
            await s.writeSSE({ event: ev.type, data: JSON.stringify(ev) });
          }
          return !finished || i < queue.length;
        },
      };
    });
  });
  return r;
}
