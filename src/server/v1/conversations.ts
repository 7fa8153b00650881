import { Hono } from "hono";
import type { ConversationMessage, ConversationRecord } from "../../store/conversations.js";
import type { ServerDeps } from "../context.js";
import { limitArg, readBody, requireMode, userOf, type V1Env } from "./env.js";
import { badParam, DifyError, notFound } from "./errors.js";
import { fileUrlsFor } from "./file-urls.js";

const sec = (ms: number) => Math.floor(ms / 1000);

/** A conversation of this app and end user, or Dify's 404. */
export async function conversationOf(
  deps: ServerDeps,
  appId: string,
  user: string,
  id: string,
): Promise<ConversationRecord> {
  const conv = await deps.stores.conversations.get(id);
  if (!conv || conv.appId !== appId || conv.user !== user) throw notFound("Conversation Not Exists.");
  return conv;
}

function conversationJson(c: ConversationRecord) {
  return {
    id: c.id,
    name: c.name,
    inputs: c.inputs,
    status: "normal",
    introduction: "",
    created_at: sec(c.createdAt),
    updated_at: sec(c.updatedAt),
  };
}

function messageJson(m: ConversationMessage) {
  return {
    id: m.id,
    conversation_id: m.conversationId,
    parent_message_id: null,
    inputs: m.inputs,
    query: m.query,
    answer: m.answer,
    message_files: m.files.map((f) => ({
      id: f.related_id ?? "",
      filename: f.filename,
      type: f.type,
      url: f.url ?? f.remote_url ?? null,
      mime_type: f.mime_type,
      size: f.size,
      transfer_method: f.transfer_method,
      belongs_to: "user",
      upload_file_id: f.transfer_method === "local_file" ? (f.related_id ?? null) : null,
    })),
    feedback: null,
    retriever_resources: [],
    created_at: sec(m.createdAt),
    agent_thoughts: [],
    status: m.status,
    error: m.error ?? null,
  };
}

/** Chat (advanced-chat) apps' conversations of an end user: list them and their messages, rename, delete. */
export function conversationRoutes(deps: ServerDeps): Hono<V1Env> {
  const r = new Hono<V1Env>();
  const store = deps.stores.conversations;

  r.get("/conversations", async (c) => {
    const app = requireMode(c, "advanced-chat");
    const user = userOf(c.req.query("user"));
    const limit = limitArg(c.req.query("limit"));
    const sort = c.req.query("sort_by") ?? "-updated_at";
    if (!["created_at", "-created_at", "updated_at", "-updated_at"].includes(sort))
      throw badParam(`sort_by must be one of created_at, -created_at, updated_at, -updated_at; got "${sort}"`);
    const page = await store.list(app.id, user, {
      lastId: c.req.query("last_id") || undefined,
      limit,
      sort: sort as "created_at",
    });
    if (!page) throw notFound("Last Conversation Not Exists.");
    return c.json({ limit, has_more: page.hasMore, data: page.data.map(conversationJson) });
  });

  r.get("/messages", async (c) => {
    const app = requireMode(c, "advanced-chat");
    const user = userOf(c.req.query("user"));
    const id = c.req.query("conversation_id");
    const limit = limitArg(c.req.query("limit"));
    // Dify's curl example sends `conversation_id=` (no conversation yet): an empty page, not an error.
    if (!id) return c.json({ limit, has_more: false, data: [] });
    const conv = await conversationOf(deps, app.id, user, id);
    const page = await store.listMessages(conv.id, { firstId: c.req.query("first_id") || undefined, limit });
    if (!page) throw notFound("First Message Not Exists.");
    return c.json({ limit, has_more: page.hasMore, data: fileUrlsFor(c, deps)(page.data.map(messageJson)) });
  });

  r.post("/conversations/:id/name", async (c) => {
    const app = requireMode(c, "advanced-chat");
    const body = await readBody(c);
    const conv = await conversationOf(deps, app.id, userOf(body.user), c.req.param("id"));
    if (body.auto_generate === true)
      throw new DifyError(
        400,
        "invalid_param",
        "auto_generate needs a model to name the conversation; send `name` instead",
      );
    if (typeof body.name !== "string" || body.name.trim() === "") throw badParam("name is required");
    await store.rename(conv.id, body.name);
    return c.json(conversationJson((await store.get(conv.id))!));
  });

  r.delete("/conversations/:id", async (c) => {
    const app = requireMode(c, "advanced-chat");
    const conv = await conversationOf(deps, app.id, userOf((await readBody(c)).user), c.req.param("id"));
    await store.delete(conv.id);
    return c.body(null, 204);
  });

  return r;
}
