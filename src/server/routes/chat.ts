import { type Context, Hono } from "hono";
import type { AgentEvent } from "../../authoring/react.js";
import { agentAuthor } from "../../authoring/turn/agent.js";
import { ChatTurn, type TurnEvent, type TurnResult } from "../../authoring/turn/service.js";
import type { WorkflowDiff } from "../../ir/diff.js";
import type { LlmService, ModelRef } from "../../ir/services.js";
import { describeConfigHelp } from "../../llm/index.js";
import type { AppRecord, DraftRecord, TurnOutcome } from "../../store/apps.js";
import { readJson, requireApp, type ServerDeps } from "../context.js";
import { ApiError } from "../errors.js";
import { type ProposalView, proposalView } from "../proposal-view.js";
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

interface ChatRequest {
  message: string;
  apply: boolean;
  llm: LlmService;
  model: ModelRef;
}

/** The body's message and options, and the agent's model; refused before any turn starts. */
async function chatRequest(c: Context, deps: ServerDeps): Promise<ChatRequest> {
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
  return { message, apply: body.apply === true, llm, model };
}

/** The server's agent for one turn: the configured models and services, its events sent down the stream. */
function studioAgent(deps: ServerDeps, app: AppRecord, req: ChatRequest, stream: EventQueue) {
  return agentAuthor({
    llm: req.llm,
    model: req.model,
    models: deps.llmConfig ? Object.keys(deps.llmConfig.models) : [],
    mode: app.mode,
    compact: deps.nodeModel ? { llmModel: deps.nodeModel } : {},
    services: deps.services,
    maxIterations: deps.agentMaxIterations,
    signal: stream.abort.signal,
    onEvent: stream.emit,
  });
}

/** The turn's proposal as the studio shows it (against the draft it was made from). */
function streamEvent(e: TurnEvent, base: DraftRecord): ChatStreamEvent {
  return e.type === "proposal" ? { type: "proposal", proposal: proposalView(e.proposal, base) } : e;
}

function doneEvent(res: TurnResult, version: number): ChatStreamEvent {
  const { reply, updated, outcome, notApplied, revision } = res;
  return { type: "done", reply, updated, outcome, notApplied, proposal: res.proposal?.id ?? null, version, revision };
}

/**
 * The turn's events as they come, sent by the SSE response in order; the turn runs on when nobody reads yet.
 * A client that closes the stream before the turn ends stops the agent.
 */
class EventQueue {
  private readonly queue: ChatStreamEvent[] = [];
  private finished = false;
  private wake = () => {};
  readonly abort = new AbortController();

  readonly emit = (e: ChatStreamEvent) => {
    this.queue.push(e);
    this.wake();
  };

  finish(): void {
    this.finished = true;
    this.wake();
  }

  response(c: Context): Response {
    let i = 0;
    return pumpSSE(c, (w) => {
      this.wake = w;
      return {
        close: () => {
          if (!this.finished) this.abort.abort(new Error("the client closed the chat stream"));
        },
        pump: async (s) => {
          while (i < this.queue.length) {
            const ev = this.queue[i++]!;
            await s.writeSSE({ event: ev.type, data: JSON.stringify(ev) });
          }
          return !this.finished || i < this.queue.length;
        },
      };
    });
  }
}

/** `POST /api/apps/:id/chat`: one chat turn of the studio's agent, streamed; its change is proposed, not applied. */
export function chatRoutes(deps: ServerDeps): Hono {
  const r = new Hono();
  r.post("/:id/chat", async (c) => {
    const app = await requireApp(deps, c.req.param("id"));
    const req = await chatRequest(c, deps);
    const stream = new EventQueue();
    const turn = await ChatTurn.open(deps.editing, app.id, req.message);
    if (turn.superseded.length) stream.emit({ type: "superseded", proposals: turn.superseded });
    const base = turn.request.base;
    const version = (await deps.apps.current(app.id))?.version ?? base.baseVersion;
    void turn
      .run(studioAgent(deps, app, req, stream), {
        source: "agent",
        apply: req.apply,
        onEvent: (e) => stream.emit(streamEvent(e, base)),
      })
      .then((res) => stream.emit(doneEvent(res, version)))
      .catch((e) =>
        stream.emit({
          type: "error",
          code: e?.code ?? "agent.error",
          message: e instanceof Error ? e.message : String(e),
        }),
      )
      .finally(() => stream.finish());
    return stream.response(c);
  });
  return r;
}
