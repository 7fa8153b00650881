import type { Workflow } from "../ir/workflow.js";
import type { AppRecord } from "../store/apps.js";
import type { Stores } from "../store/stores.js";
import { newId } from "../util/ids.js";
import { isTriggerType, workflowFromEntry } from "./entry.js";
import { TriggerError } from "./errors.js";

/**
 * Starts one run and resolves once its record is stored (the server's RunHub.start, a queue submit, a worker's
 * own engine call). `done` is optional: a queued run ends elsewhere.
 */
export interface TriggerRunStarter {
  start(
    wf: Workflow,
    o: { appId: string; runId: string; inputs: Record<string, unknown>; sys?: Record<string, unknown> },
  ): Promise<{ runId: string; done?: Promise<unknown> }>;
}

export interface TriggerRunContext {
  stores: Stores;
  starter: TriggerRunStarter;
}

export interface TriggerRunOptions {
  source: "trigger";
  /** The TriggerStore id of the trigger that fired; recorded in the run log (`trigger_id`). */
  triggerId: string;
  /** A run id minted beforehand (a webhook stores its delivery first, naming the run); default a new id. */
  runId?: string;
  /** Extra `sys.*` values; `sys.user_id` defaults to `trigger:<triggerId>`. */
  sys?: Record<string, unknown>;
}

export interface TriggeredRun {
  runId: string;
  /** The published version that ran. */
  version: number;
  done?: Promise<unknown>;
}

/**
 * Start a run of the app's published version at one trigger node, with `payload` as the run's inputs (what
 * the trigger node exposes as its outputs: the webhook's variables, the schedule's fire time). Refused with a
 * TriggerError when the app is unpublished, the published version has no trigger node `triggerNodeId`, or the
 * node is a `trigger-plugin` (no plugin runtime here). The run is tagged `source: "trigger"` with the trigger id.
 */
export async function startTriggeredRun(
  ctx: TriggerRunContext,
  app: AppRecord,
  triggerNodeId: string,
  payload: Record<string, unknown>,
  o: TriggerRunOptions,
): Promise<TriggeredRun> {
  const published = await ctx.stores.apps.published(app.id);
  const where = { appId: app.id, nodeId: triggerNodeId, triggerId: o.triggerId };
  if (!published)
    throw new TriggerError(
      "trigger.app_unpublished",
      `app ${app.id} has no published version; publish it (studio Publish or \`weft apps publish\`) before its triggers run`,
      where,
    );
  const node = published.workflow.nodes.find((n) => n.id === triggerNodeId && !n.parentId);
  if (!node || !isTriggerType(node.type))
    throw new TriggerError(
      node ? "trigger.not_a_trigger" : "trigger.node_missing",
      node
        ? `node "${triggerNodeId}" of app ${app.id} is a ${node.type} node, not a trigger`
        : `the published version ${published.version} of app ${app.id} has no trigger node "${triggerNodeId}"`,
      { ...where, version: published.version },
    );
  if (node.type === "trigger-plugin") throw pluginRefusal(triggerNodeId, node.config);
  const runId = o.runId ?? newId();
  const started = await ctx.starter.start(workflowFromEntry(published.workflow, triggerNodeId), {
    appId: app.id,
    runId,
    inputs: payload,
    sys: { user_id: `trigger:${o.triggerId}`, ...o.sys },
  });
  await ctx.stores.runLog.tag(started.runId, { source: o.source, version: published.version, triggerId: o.triggerId });
  return { runId: started.runId, version: published.version, done: started.done };
}

/** A plugin trigger needs Dify's plugin daemon and the plugin's subscription, neither of which Weft has. */
export function pluginRefusal(nodeId: string, config: Record<string, unknown>): TriggerError {
  const provider = [config.provider_id, config.event_name].filter((v) => typeof v === "string" && v).join("/");
  return new TriggerError(
    "trigger.plugin_unsupported",
    `trigger-plugin node "${nodeId}"${provider ? ` (${provider})` : ""} needs Dify's plugin daemon and a plugin subscription, which Weft does not provide; replace it with a trigger-webhook node that the plugin's service calls`,
    { nodeId, field: "type" },
  );
}
