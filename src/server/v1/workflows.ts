import { Hono } from "hono";
import type { ServerDeps } from "../context.js";
import { objectArg, readBody, requireMode, responseMode, userOf, type V1Context, type V1Env } from "./env.js";
import { DifyError, notFound } from "./errors.js";
import { fileUrlsFor } from "./file-urls.js";
import { resolveAppFiles, resolveInputs } from "./files-in.js";
import { workflowPausedBlocking } from "./paused.js";
import { serviceRunOf, startServiceRun, stopTask, streamContext } from "./runs.js";
import { difyStream, parseEventId, type StreamFrom, translateAll } from "./stream.js";
import type { DifyEvent } from "./translate.js";

const sec = (ms: number) => Math.floor(ms / 1000);

/** The run's final Dify event so far (workflow_finished, or workflow_paused while it waits). */
function lastOutcome(events: DifyEvent[]): DifyEvent | undefined {
  return events.findLast((e) => e.event === "workflow_finished" || e.event === "workflow_paused");
}

/** POST /workflows/run: a run of the published version, streamed or answered with its outcome when it ends. */
async function runWorkflow(deps: ServerDeps, c: V1Context): Promise<Response> {
  const app = requireMode(c, "workflow");
  const body = await readBody(c);
  const user = userOf(body.user);
  const mode = responseMode(body.response_mode);
  const current = await deps.apps.published(app.id);
  const inputs = current
    ? await resolveInputs(deps.stores.service, app.id, current.workflow, objectArg(body.inputs, "inputs"))
    : {};
  const files = await resolveAppFiles(deps.stores.service, app.id, current, body.files);
  const { runId, done, run, svc } = await startServiceRun(deps, app, { user, inputs, files, published: current });
  const ctx = await streamContext(deps, app, run, svc);
  const fileUrls = fileUrlsFor(c, deps);
  if (mode === "streaming") return difyStream(c, deps.hub, { ctx, from: { kind: "start" }, fileUrls });
  await done;
  const outcome = lastOutcome(translateAll(ctx, await deps.hub.events(runId)));
  if (!outcome) throw new DifyError(500, "internal_server_error", "the run ended without a result");
  const data = outcome.event === "workflow_paused" ? workflowPausedBlocking(outcome, app.id) : outcome.data;
  return c.json({ task_id: runId, workflow_run_id: runId, data: fileUrls(data) });
}

/** GET /workflows/run/:id: a run's status, outputs and counts as Dify's workflow run detail. */
async function runDetail(deps: ServerDeps, c: V1Context, runId: string): Promise<Response> {
  const app = requireMode(c, "workflow");
  const { run, svc } = await serviceRunOf(deps, app, runId);
  const ctx = await streamContext(deps, app, run, svc);
  const events = translateAll(ctx, await deps.hub.events(run.id));
  const outcome = lastOutcome(events)?.data as Record<string, unknown> | undefined;
  const stopped = run.status === "failed" && run.error?.code === "run.cancelled";
  const finished = run.status !== "running" && run.status !== "paused";
  return c.json({
    id: run.id,
    workflow_id: app.id,
    status: stopped ? "stopped" : run.status,
    inputs: JSON.stringify(run.inputs),
    outputs: fileUrlsFor(c, deps)(run.outputs ?? null),
    error: run.error?.message ?? null,
    total_steps: outcome?.total_steps ?? events.filter((e) => e.event === "node_started").length,
    total_tokens: outcome?.total_tokens ?? 0,
    created_at: sec(svc.createdAt),
    finished_at: finished ? sec(run.updatedAt) : null,
    elapsed_time: ((finished ? run.updatedAt : Date.now()) - svc.createdAt) / 1000,
  });
}

/** Workflow apps: run (blocking and streaming), a run's details, stop, and the event stream to reconnect to. */
export function workflowRoutes(deps: ServerDeps): Hono<V1Env> {
  const r = new Hono<V1Env>();

  r.post("/workflows/run", (c) => runWorkflow(deps, c));

  r.get("/workflows/run/:id", (c) => runDetail(deps, c, c.req.param("id")));

  r.post("/workflows/tasks/:id/stop", async (c) => {
    const app = requireMode(c, "workflow");
    userOf((await readBody(c)).user);
    return c.json(await stopTask(deps, app, c.req.param("id")));
  });

  // Dify's reconnect: the latest segment (or after Last-Event-ID, or a snapshot of what already ran), then live.
  r.get("/workflow/:id/events", async (c) => {
    const app = c.get("app");
    const user = userOf(c.req.query("user"));
    const { run, svc } = await serviceRunOf(deps, app, c.req.param("id"));
    if (svc.user !== user) throw notFound("Workflow run not found");
    const after = parseEventId(c.req.header("last-event-id"));
    const from: StreamFrom = after
      ? { kind: "after", ...after }
      : c.req.query("include_state_snapshot") === "true"
        ? { kind: "snapshot" }
        : { kind: "segment" };
    const ctx = await streamContext(deps, app, run, svc);
    return difyStream(c, deps.hub, {
      ctx,
      from,
      continueOnPause: c.req.query("continue_on_pause") === "true",
      fileUrls: fileUrlsFor(c, deps),
    });
  });

  return r;
}
