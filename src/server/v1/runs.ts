import { runGate } from "../../analysis/runnable.js";
import { checkRunInputs } from "../../engine/inputs.js";
import { formatDiagnostic } from "../../ir/diagnostics.js";
import type { FileValue } from "../../ir/services.js";
import type { AppRecord, VersionRecord } from "../../store/apps.js";
import type { RunRecord } from "../../store/runs.js";
import type { ServiceRunRecord } from "../../store/service-api.js";
import { newId } from "../../util/ids.js";
import type { ServerDeps } from "../context.js";
import type { RunContext } from "../hub.js";
import { diagnosticsOf } from "../routes/runs.js";
import { DifyError, notFound } from "./errors.js";
import type { StreamContext } from "./translate.js";

export interface ServiceRunRequest {
  user: string;
  inputs: Record<string, unknown>;
  files: FileValue[];
  /** Chat turns: the query, conversation and message the run answers. */
  chat?: {
    query: string;
    conversationId: string;
    messageId: string;
    dialogueCount: number;
    variables: Record<string, unknown>;
  };
  /** Stores what must exist before the run can end (a chat turn's message). */
  beforeStart?: (runId: string) => Promise<void>;
  /** The app's published version when the caller has just read it (one read fewer per request). */
  published?: VersionRecord;
}

/** The `sys.*` values of a service API run, the same when it starts and whenever it is resumed. */
export function systemValues(
  appId: string,
  user: string,
  files: FileValue[],
  chat?: ServiceRunRequest["chat"],
): Record<string, unknown> {
  return {
    user_id: user,
    app_id: appId,
    workflow_id: appId,
    files,
    // Dify counts the conversation's messages including this one: the first turn is 1.
    ...(chat && { query: chat.query, conversation_id: chat.conversationId, dialogue_count: chat.dialogueCount + 1 }),
  };
}

/**
 * Start a run of the app's current version for an end user (with the run's and the service records as stored,
 * so the request need not read them back): refused (400) when the version has analyser
 * errors or the inputs do not fit the start node; the end user's record is stored before the run starts, so
 * every listener and late client finds it.
 */
export async function startServiceRun(
  deps: ServerDeps,
  app: AppRecord,
  req: ServiceRunRequest,
): Promise<{ runId: string; done: Promise<unknown>; run: RunRecord; svc: ServiceRunRecord }> {
  const current = req.published ?? (await deps.apps.published(app.id));
  if (!current)
    throw new DifyError(
      400,
      "app_unavailable",
      "App unavailable: it has not been published yet (publish it in the studio or with `weft apps publish`).",
    );
  // Served as Dify serves its published workflow: findings Dify runs anyway do not refuse it (publishing them
  // took the editor's allow_warnings, and the version keeps listing them); the rest still do.
  const blocking = runGate(diagnosticsOf(app.id, current.version, current.workflow), { allowWarnings: true }).blocking;
  if (blocking.length > 0) {
    throw new DifyError(
      400,
      "app_unavailable",
      `App unavailable: version ${current.version} has errors (${formatDiagnostic(blocking[0]!)}).`,
    );
  }
  checkRunInputs(current.workflow, req.inputs);
  const runId = newId();
  const svc: ServiceRunRecord = {
    runId,
    appId: app.id,
    user: req.user,
    ...(req.chat && { conversationId: req.chat.conversationId, messageId: req.chat.messageId }),
    files: req.files,
    createdAt: Date.now(),
  };
  await deps.stores.service.recordRun(svc);
  await req.beforeStart?.(runId);
  const started = await deps.hub.start(current.workflow, {
    runId,
    appId: app.id,
    inputs: req.inputs,
    sys: systemValues(app.id, req.user, req.files, req.chat),
    conversation: req.chat?.variables,
  });
  await deps.stores.runLog.tag(runId, { source: "v1", version: current.version });
  return { ...started, svc };
}

/** A run of this app started through the service API, or Dify's 404. */
export async function serviceRunOf(
  deps: ServerDeps,
  app: AppRecord,
  runId: string,
): Promise<{ run: RunRecord; svc: ServiceRunRecord }> {
  const svc = await deps.stores.service.serviceRun(runId);
  const run = svc && svc.appId === app.id ? await deps.runs.getRun(runId) : undefined;
  if (!svc || !run) throw notFound("Workflow run not found");
  return { run, svc };
}

/** What the Dify translation of a run needs, rebuilt from the stored records (the same for every client). */
export async function streamContext(
  deps: ServerDeps,
  app: AppRecord,
  run: RunRecord,
  svc: ServiceRunRecord,
): Promise<StreamContext> {
  const msg = svc.messageId ? await deps.stores.conversations.getMessage(svc.messageId) : undefined;
  const sys: Record<string, unknown> = {
    "sys.files": svc.files ?? [],
    "sys.user_id": svc.user,
    "sys.app_id": app.id,
    "sys.workflow_id": app.id,
    "sys.workflow_run_id": run.id,
    ...(msg && { "sys.query": msg.query, "sys.conversation_id": msg.conversationId }),
  };
  return {
    runId: run.id,
    mode: app.mode === "advanced-chat" ? "advanced-chat" : "workflow",
    workflowId: app.id,
    workflow: run.workflow,
    inputs: { ...run.inputs, ...sys },
    user: svc.user,
    createdAt: svc.createdAt,
    conversationId: svc.conversationId,
    messageId: svc.messageId,
  };
}

/**
 * How a resumed service API run continues: the same end user, files, query and conversation as when it
 * started (the run record keeps only the inputs). Runs not started through /v1 resume with none.
 */
export async function resumeContext(deps: ServerDeps, runId: string): Promise<RunContext> {
  const svc = await deps.stores.service.serviceRun(runId);
  if (!svc) return {};
  const msg = svc.messageId ? await deps.stores.conversations.getMessage(svc.messageId) : undefined;
  const conv = svc.conversationId ? await deps.stores.conversations.get(svc.conversationId) : undefined;
  const chat =
    msg && conv
      ? {
          query: msg.query,
          conversationId: conv.id,
          messageId: msg.id,
          dialogueCount: conv.dialogueCount,
          variables: conv.variables,
        }
      : undefined;
  return {
    appId: svc.appId,
    sys: systemValues(svc.appId, svc.user, svc.files ?? [], chat),
    conversation: conv?.variables,
  };
}

/** Stop a task of this app (Dify's stop is idempotent: a finished task answers success too). */
export async function stopTask(deps: ServerDeps, app: AppRecord, taskId: string): Promise<{ result: "success" }> {
  const svc = await deps.stores.service.serviceRun(taskId);
  if (!svc || svc.appId !== app.id) throw notFound("Task not found");
  deps.hub.cancel(taskId);
  return { result: "success" };
}
