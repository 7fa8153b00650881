import { randomUUID } from "node:crypto";
import { Hono } from "hono";
import type { AppRecord, VersionRecord } from "../../store/apps.js";
import type { ConversationMessage, ConversationRecord } from "../../store/conversations.js";
import type { ServerDeps } from "../context.js";
import { conversationOf } from "./conversations.js";
import { objectArg, readBody, requireMode, responseMode, userOf, type V1Context, type V1Env } from "./env.js";
import { badParam, DifyError } from "./errors.js";
import { fileUrlsFor } from "./file-urls.js";
import { resolveAppFiles, resolveInputs } from "./files-in.js";
import { chatPausedBlocking } from "./paused.js";
import { startServiceRun, stopTask, streamContext } from "./runs.js";
import { difyStream } from "./stream.js";
import { DifyTranslator, type StreamContext } from "./translate.js";

const sec = (ms: number) => Math.floor(ms / 1000);

/**
 * A chat turn's conversation and its new message (not stored yet): the named conversation continued, or a new
 * one named after the query.
 */
async function openTurn(
  deps: ServerDeps,
  app: AppRecord,
  current: VersionRecord | undefined,
  body: Record<string, unknown>,
  { user, query }: { user: string; query: string },
): Promise<{ conv: ConversationRecord; message: ConversationMessage }> {
  const files = await resolveAppFiles(deps.stores.service, app.id, current, body.files);
  const given =
    typeof body.conversation_id === "string" && body.conversation_id !== "" ? body.conversation_id : undefined;
  const existing = given ? await conversationOf(deps, app.id, user, given) : undefined;
  // Later turns run with the conversation's first inputs, as Dify does.
  const inputs = existing
    ? existing.inputs
    : current
      ? await resolveInputs(deps.stores.service, app.id, current.workflow, objectArg(body.inputs, "inputs"))
      : {};
  const conv =
    existing ??
    (await deps.stores.conversations.create(app.id, { user, inputs, name: query.slice(0, 40) || "New conversation" }));
  const now = Date.now();
  const message: ConversationMessage = {
    id: randomUUID(),
    conversationId: conv.id,
    appId: app.id,
    user,
    runId: "",
    query,
    answer: "",
    inputs,
    files,
    status: "normal",
    createdAt: now,
    updatedAt: now,
  };
  return { conv, message };
}

/** The turn's run. The message exists before its run, so the turn's end (a listener) always finds it. */
function startTurn(
  deps: ServerDeps,
  app: AppRecord,
  current: VersionRecord | undefined,
  conv: ConversationRecord,
  message: ConversationMessage,
) {
  return startServiceRun(deps, app, {
    user: message.user,
    inputs: message.inputs,
    files: message.files,
    chat: {
      query: message.query,
      conversationId: conv.id,
      messageId: message.id,
      dialogueCount: conv.dialogueCount,
      variables: conv.variables,
    },
    published: current,
    beforeStart: (id) => deps.stores.conversations.addMessage({ ...message, runId: id }),
  });
}

/** A finished (or paused) turn as Dify's blocking response; a failed run is its error. */
async function blockingAnswer(deps: ServerDeps, ctx: StreamContext, runId: string, message: ConversationMessage) {
  const tr = new DifyTranslator(ctx);
  const events = (await deps.hub.events(runId)).flatMap((e) => tr.next(e));
  const failed = events.find((e) => e.event === "error");
  if (failed) throw new DifyError(Number(failed.status) || 400, String(failed.code), String(failed.message));
  const end = events.findLast((e) => e.event === "message_end");
  const answer = events
    .filter((e) => e.event === "message")
    .map((e) => e.answer)
    .join("");
  const pause = events.at(-1)?.event === "workflow_paused" ? events.at(-1) : undefined;
  if (pause) {
    return chatPausedBlocking(pause, {
      messageId: message.id,
      conversationId: message.conversationId,
      answer,
      usage: tr.usage(Date.now()),
      createdAt: sec(message.createdAt),
    });
  }
  return {
    event: "message",
    task_id: runId,
    id: message.id,
    message_id: message.id,
    conversation_id: message.conversationId,
    mode: "advanced-chat",
    answer,
    metadata: { usage: (end?.metadata as { usage?: unknown } | undefined)?.usage ?? null, retriever_resources: [] },
    created_at: sec(message.createdAt),
  };
}

/** POST /chat-messages: a turn of the named (or a new) conversation, streamed or answered when it ends. */
async function chatMessage(deps: ServerDeps, c: V1Context): Promise<Response> {
  const app = requireMode(c, "advanced-chat");
  const body = await readBody(c);
  const user = userOf(body.user);
  const mode = responseMode(body.response_mode);
  if (typeof body.query !== "string") throw badParam("query is required");
  const current = await deps.apps.published(app.id);
  const { conv, message } = await openTurn(deps, app, current, body, { user, query: body.query });
  const { runId, done, run, svc } = await startTurn(deps, app, current, conv, message);
  const ctx = await streamContext(deps, app, run, svc);
  if (mode === "streaming")
    return difyStream(c, deps.hub, { ctx, from: { kind: "start" }, fileUrls: fileUrlsFor(c, deps) });
  await done;
  return c.json(await blockingAnswer(deps, ctx, runId, message));
}

/** Chat (advanced-chat) apps: messages with conversation continuity, and stopping one (conversations.ts lists them). */
export function chatRoutes(deps: ServerDeps): Hono<V1Env> {
  const r = new Hono<V1Env>();

  r.post("/chat-messages", (c) => chatMessage(deps, c));

  r.post("/chat-messages/:id/stop", async (c) => {
    const app = requireMode(c, "advanced-chat");
    userOf((await readBody(c)).user);
    return c.json(await stopTask(deps, app, c.req.param("id")));
  });

  return r;
}
