import type { RunResult } from "../../engine/run.js";
import type { ServerDeps } from "../context.js";
import type { RunContext } from "../hub.js";
import { serviceRunOf, streamContext } from "./runs.js";
import { translateAll } from "./stream.js";

/**
 * The end of a chat turn's run segment, as Dify records it: the message gets the answer streamed so far and
 * its status (`normal`, `error`, or `paused` while a form waits); a finished turn carries the conversation's
 * variables and one more dialogue into the next turn.
 */
export async function finishChatTurn(
  deps: ServerDeps,
  runId: string,
  result: RunResult,
  context: RunContext,
): Promise<void> {
  // Only a chat turn's segment has a conversation (systemValues; resumeContext rebuilds it from the records):
  // every other run's end, a workflow's included, needs no read of its service record here.
  if (!isChatTurn(context)) return;
  const svc = await deps.stores.service.serviceRun(runId);
  if (!svc?.messageId || !svc.conversationId) return;
  const app = await deps.apps.getApp(svc.appId);
  if (!app) return;
  const { run } = await serviceRunOf(deps, app, runId);
  const ctx = await streamContext(deps, app, run, svc);
  const answer = translateAll(ctx, await deps.hub.events(runId))
    .filter((e) => e.event === "message")
    .map((e) => e.answer)
    .join("");
  const ok = result.status === "succeeded" || result.status === "partial-succeeded";
  const status = ok ? "normal" : result.status === "paused" ? "paused" : "error";
  await deps.stores.conversations.updateMessage(svc.messageId, {
    answer,
    status,
    ...(status === "error" && { error: result.error?.message ?? "the run failed" }),
    updatedAt: Date.now(),
  });
  if (ok) await deps.stores.conversations.finishTurn(svc.conversationId, result.conversation);
}

function isChatTurn(context: RunContext): boolean {
  const conversation = context.sys?.conversation_id;
  return typeof conversation === "string" && conversation !== "";
}
