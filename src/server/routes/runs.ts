import { Hono } from "hono";
import { analyse, runGate } from "../../analysis/index.js";
import { type Diagnostic, formatDiagnostic } from "../../ir/diagnostics.js";
import { WeftError } from "../../ir/errors.js";
import type { Workflow } from "../../ir/workflow.js";
import { nodeCatalogue } from "../../nodes/index.js";
import { usageOfAttempts } from "../../observability/cost.js";
import type { ConversationRecord } from "../../store/conversations.js";
import { readJson, requireApp, type ServerDeps } from "../context.js";
import { getDraft } from "../drafts.js";
import { ApiError } from "../errors.js";
import { storeRunFiles } from "../run-files.js";
import { pumpSSE } from "../sse.js";

// Stored versions never change, so their analysis is computed once per version.
const analysed = new Map<string, Diagnostic[]>();
export function diagnosticsOf(appId: string, version: number, wf: Workflow): Diagnostic[] {
  const k = `${appId}:${version}`;
  let d = analysed.get(k);
  if (!d) {
    d = analyse(wf, nodeCatalogue).diagnostics;
    if (analysed.size > 1000) analysed.delete(analysed.keys().next().value!);
    analysed.set(k, d);
  }
  return d;
}

/** A chat turn continues the conversation it names, or starts one. */
async function openConversation(deps: ServerDeps, appId: string, id: unknown): Promise<ConversationRecord> {
  if (id === undefined || id === null || id === "") return deps.stores.conversations.create(appId);
  if (typeof id !== "string")
    throw new ApiError(400, "request.invalid_conversation_id", "`conversationId` must be a string");
  const conv = await deps.stores.conversations.get(id);
  if (!conv || conv.appId !== appId)
    throw new ApiError(404, "conversation.not_found", `app ${appId} has no conversation ${id}; omit it to start one`);
  return conv;
}

/** The studio's Run (POST /api/apps/:id/runs): the app's draft, as Dify's debug run; end users run the published version. */
export function appRunRoutes(deps: ServerDeps): Hono {
  const r = new Hono();
  r.post("/:id/runs", async (c) => {
    const app = await requireApp(deps, c.req.param("id"));
    const body = await readJson(c);
    const inputs = body.inputs ?? {};
    if (typeof inputs !== "object" || inputs === null || Array.isArray(inputs))
      throw new ApiError(400, "request.invalid_inputs", "`inputs` must be an object");
    const draft = await getDraft(deps.apps, app.id, deps.nodeTypes);
    const diagnostics = draft.diagnostics;
    const gate = runGate(diagnostics, { allowWarnings: body.allow_warnings === true });
    if (gate.blocking.length > 0) {
      const first = gate.blocking[0]!;
      throw new ApiError(
        422,
        "run.invalid_workflow",
        `the draft (revision ${draft.revision}) has errors; fix them before running (${formatDiagnostic(first)})`,
        diagnostics,
      );
    }
    const sys: Record<string, unknown> = {};
    if (typeof body.query === "string") sys.query = body.query;
    const files = await storeRunFiles(body.files, deps.services.files);
    if (files.length > 0) sys.files = files;
    const conv = app.mode === "advanced-chat" ? await openConversation(deps, app.id, body.conversationId) : undefined;
    if (conv) Object.assign(sys, { conversation_id: conv.id, dialogue_count: conv.dialogueCount + 1 });
    const { runId } = await deps.hub.start(draft.workflow, {
      appId: app.id,
      inputs: inputs as Record<string, unknown>,
      sys,
      ...(conv && {
        conversation: conv.variables,
        onFinished: (r) => deps.stores.conversations.finishTurn(conv.id, r.conversation),
      }),
    });
    // The studio says it is the studio; any other client of this route is the API.
    const source = c.req.header("x-weft-client") === "studio" ? "studio" : "api";
    await deps.stores.runLog.tag(runId, { source, version: draft.baseVersion, draft: true });
    return c.json(
      {
        runId,
        version: draft.baseVersion,
        draftRevision: draft.revision,
        ...(conv && { conversationId: conv.id }),
        ...(gate.downgraded.length > 0 ? { warnings: gate.downgraded } : {}),
      },
      202,
    );
  });
  return r;
}

export function runRoutes(deps: ServerDeps): Hono {
  const r = new Hono();
  const record = async (id: string) => {
    const run = await deps.runs.getRun(id);
    if (!run) throw new ApiError(404, "run.not_found", `no run with id ${id}`);
    return run;
  };

  r.get("/:id", async (c) => {
    const run = await record(c.req.param("id"));
    return c.json({
      id: run.id,
      appId: run.appId,
      status: run.status,
      active: deps.hub.isActive(run.id),
      inputs: run.inputs,
      outputs: run.outputs,
      error: run.error,
      // Tokens of every segment so far, priced by weft.config.json `observability.prices` when set.
      usage: usageOfAttempts(run.workflow, await deps.runs.attempts(run.id), deps.prices),
      createdAt: run.createdAt,
      updatedAt: run.updatedAt,
    });
  });

  r.get("/:id/trace", async (c) => {
    const run = await record(c.req.param("id"));
    return c.json({ id: run.id, status: run.status, trace: await deps.runs.attempts(run.id) });
  });

  // Every event from the first (or after Last-Event-ID), then live ones; the stream ends when the run does.
  r.get("/:id/events", async (c) => {
    const run = await record(c.req.param("id"));
    const last = Number(c.req.header("last-event-id") ?? c.req.query("after") ?? -1);
    let i = Number.isInteger(last) && last >= 0 ? last + 1 : 0;
    return pumpSSE(c, async (wake) => {
      const sub = await deps.hub.subscribe(run.id, wake);
      return {
        close: sub.close,
        pump: async (s) => {
          const events = sub.events();
          while (i < events.length) {
            const ev = events[i]!;
            await s.writeSSE({ id: String(i), event: ev.type, data: JSON.stringify(ev) });
            i++;
          }
          return sub.active() || i < sub.events().length;
        },
      };
    });
  });

  r.post("/:id/resume", async (c) => {
    const run = await record(c.req.param("id"));
    if (deps.hub.isActive(run.id)) throw new ApiError(409, "run.active", `run ${run.id} is still running`);
    if (run.status === "succeeded" || run.status === "partial-succeeded") {
      throw new ApiError(409, "run.finished", `run ${run.id} already finished (${run.status}); nothing to resume`);
    }
    // Answered once the run is active again, so a stream opened next follows the resumed segment.
    let resumed: { done: Promise<unknown> };
    try {
      resumed = await deps.hub.resume(run.id);
    } catch (e) {
      if (e instanceof WeftError && e.code === "run.active") throw new ApiError(409, "run.active", e.message);
      throw e;
    }
    void resumed.done.catch(() => {});
    return c.json({ runId: run.id, resumed: true }, 202);
  });

  r.post("/:id/cancel", async (c) => {
    const run = await record(c.req.param("id"));
    if (!deps.hub.cancel(run.id)) throw new ApiError(409, "run.not_active", `run ${run.id} is not running`);
    return c.json({ runId: run.id, cancelled: true }, 202);
  });

  return r;
}

/** A chat app's conversation: the variables carried into its next turn (GET /api/apps/:id/conversations/:cid). */
export function conversationRoutes(deps: ServerDeps): Hono {
  const r = new Hono();
  r.get("/:id/conversations/:cid", async (c) => {
    const app = await requireApp(deps, c.req.param("id"));
    const conv = await deps.stores.conversations.get(c.req.param("cid"));
    if (!conv || conv.appId !== app.id)
      throw new ApiError(404, "conversation.not_found", `app ${app.id} has no conversation ${c.req.param("cid")}`);
    return c.json({
      id: conv.id,
      variables: conv.variables,
      dialogueCount: conv.dialogueCount,
      updatedAt: conv.updatedAt,
    });
  });
  return r;
}
