import { Hono } from "hono";
import { diffWorkflows } from "../../agent/diff.js";
import { type AgentEvent, runAgent } from "../../agent/react.js";
import { describeConfigHelp } from "../../llm/index.js";
import { readJson, requireApp, type ServerDeps } from "../context.js";
import { ApiError } from "../errors.js";
import { pumpSSE } from "../sse.js";

/** What the chat stream sends: the agent's events, plus `version` when a new version was stored and a final `done`. */
export type ChatStreamEvent =
  | AgentEvent
  | { type: "version"; version: number; diff: ReturnType<typeof diffWorkflows> }
  | { type: "done"; reply: string; updated: boolean; version: number };

export function chatRoutes(deps: ServerDeps): Hono {
  const r = new Hono();
  r.post("/:id/chat", async (c) => {
    const app = await requireApp(deps, c.req.param("id"));
    const body = await readJson(c);
    const message = typeof body.message === "string" ? body.message.trim() : "";
    if (!message) throw new ApiError(400, "request.missing_message", "the body needs a non-empty `message` string");
    const llm = deps.agentLlm;
    if (!llm)
      throw new ApiError(503, "llm.not_configured", `no model is configured for the agent.\n${describeConfigHelp()}`);
    const model =
      typeof body.model === "string" && body.model ? { ...deps.agentModel, name: body.model } : deps.agentModel;
    await deps.apps.addMessage(app.id, "user", message);

    const queue: ChatStreamEvent[] = [];
    let finished = false;
    let wake = () => {};
    const ctrl = new AbortController();
    const emit = (e: ChatStreamEvent) => {
      queue.push(e);
      wake();
    };
    let base = (await deps.apps.current(app.id))!;
    let latest = base.version;
    // Versions are stored in the order the agent produced them; the final reply waits for the last one.
    let saving = Promise.resolve();
    const models = deps.llmConfig ? Object.keys(deps.llmConfig.models) : [];
    void runAgent(message, {
      llm,
      model,
      models,
      workflow: base.workflow,
      mode: app.mode,
      services: deps.services,
      maxIterations: deps.agentMaxIterations,
      signal: ctrl.signal,
      onEvent: (e) => {
        emit(e);
        if (e.type === "workflow") {
          // Each accepted update becomes a version at once, so the canvas can follow the agent's steps.
          const workflow = e.workflow;
          saving = saving.then(async () => {
            const v = await deps.apps.addVersion(
              app.id,
              { ...workflow, name: base.workflow.name },
              "agent",
              message.slice(0, 200),
            );
            emit({ type: "version", version: v.version, diff: diffWorkflows(base.workflow, v.workflow) });
            base = v;
            latest = v.version;
          });
        }
      },
    })
      .then(async (res) => {
        await saving;
        if (res.reply || res.updated)
          await deps.apps.addMessage(app.id, "assistant", res.reply, res.updated ? latest : undefined);
        emit({ type: "done", reply: res.reply, updated: res.updated, version: latest });
      })
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
