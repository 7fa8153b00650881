/**
 * The service API driven by Dify's official `dify-client` package (pinned, unchanged): a workflow app blocking
 * and streaming, a chat app across two turns of one conversation, a file upload used as an input, and stop
 * of a running task (through the client's own `sendRequest`, as the package has no stop helper).
 */

import { ChatClient, CompletionClient, DifyClient } from "dify-client";
import { createParser } from "eventsource-parser";
import { describe, expect, it } from "vitest";
import { v1ServerPerFile } from "../../support/per-file.js";
import { reply } from "../../support/replay-server.js";
import { branchingWorkflow, chatWorkflow, difyEvents, fileWorkflow, slowWorkflow } from "../../support/v1-apps.js";

// The package's index.d.ts predates its index.js: runWorkflow and renameConversation's auto_generate exist at run time.
type WorkflowClient = CompletionClient & {
  runWorkflow(inputs: Record<string, unknown>, user: string, stream?: boolean, files?: unknown): Promise<any>;
};
const workflowClient = (key: string, url: string) => new CompletionClient(key, url) as WorkflowClient;

const s = v1ServerPerFile();

/** axios rejects non-2xx answers: the Dify error body it carries. */
async function failure(p: Promise<unknown>): Promise<{ status: number; body: any }> {
  try {
    await p;
  } catch (e: any) {
    return { status: e.response?.status, body: e.response?.data };
  }
  throw new Error("expected the request to fail");
}

describe("dify-client against /v1", () => {
  it("runs a workflow app blocking and streaming", async () => {
    const { key } = await s.app("branching", branchingWorkflow());
    const client = workflowClient(key, s.v1);
    s.llm.when(() => true, reply.text("Nice words."), { times: 2 });

    const blocking = await client.runWorkflow({ text: "the quick fox", mode: "each" }, "alice");
    expect(blocking.status).toBe(200);
    expect(blocking.data.task_id).toBe(blocking.data.workflow_run_id);
    expect(blocking.data.data).toMatchObject({
      id: blocking.data.workflow_run_id,
      status: "succeeded",
      outputs: { result: "THE QUICK FOX", comment: "Nice words." },
      error: null,
    });
    expect(blocking.data.data.total_steps).toBeGreaterThan(5);

    const streamed = await client.runWorkflow({ text: "a b c d", mode: "count" }, "alice", true);
    expect(streamed.headers["content-type"]).toMatch(/text\/event-stream/);
    const evs = await difyEvents(streamed.data);
    expect(evs[0]!.event).toBe("workflow_started");
    expect(evs.at(-1)).toMatchObject({
      event: "workflow_finished",
      data: { status: "succeeded", outputs: { result: "4 words", comment: "Nice words." } },
    });
    expect(
      evs
        .filter((e) => e.event === "text_chunk")
        .map((e) => e.data.text)
        .join(""),
    ).toBe("Nice words.");

    // The run is the same when looked up afterwards.
    const runId = evs[0]!.workflow_run_id;
    const got = await client.sendRequest("GET", `/workflows/run/${runId}`);
    expect(got.data).toMatchObject({ id: runId, status: "succeeded", outputs: { result: "4 words" } });
    expect(JSON.parse(got.data.inputs)).toMatchObject({ text: "a b c d", mode: "count" });

    const params = await client.getApplicationParameters("alice");
    expect(params.data.user_input_form).toEqual([
      expect.objectContaining({
        paragraph: expect.objectContaining({ variable: "text", label: "Text", required: true }),
      }),
      expect.objectContaining({ select: expect.objectContaining({ variable: "mode", options: ["each", "count"] }) }),
    ]);
  }, 120_000);

  it("refuses bad input with Dify's error bodies", async () => {
    const { key } = await s.app("branching-errors", branchingWorkflow());
    const client = workflowClient(key, s.v1);
    const missing = await failure(client.runWorkflow({ mode: "each" }, "alice"));
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ code: "invalid_param", status: 400 });
    expect(missing.body.message).toMatch(/text/);
    const bad = await failure(workflowClient("app-not-a-key", s.v1).runWorkflow({}, "alice"));
    expect(bad).toEqual({
      status: 401,
      body: { code: "unauthorized", message: "Access token is invalid", status: 401 },
    });
    const noUser = await failure(client.runWorkflow({ text: "x", mode: "each" }, undefined as unknown as string));
    expect(noUser.body).toEqual({ code: "invalid_param", message: "Arg user must be provided.", status: 400 });
    const wrongMode = await failure(new ChatClient(key, s.v1).createChatMessage({}, "hi", "alice"));
    expect(wrongMode.body).toMatchObject({ code: "not_chat_app", status: 400 });
  }, 60_000);

  it("keeps one conversation across two chat turns", async () => {
    const { key } = await s.app("chat", chatWorkflow());
    const client = new ChatClient(key, s.v1);
    s.llm.enqueue(reply.text("Hello Bob."), reply.text("Still here."));

    const first = await client.createChatMessage({ name: "Bob" }, "hi", "bob");
    expect(first.data).toMatchObject({ event: "message", mode: "advanced-chat", answer: "Hello Bob. (turn 1, Bob)" });
    const conversationId = first.data.conversation_id;

    const second = await client.createChatMessage({}, "again", "bob", true, conversationId);
    const evs = await difyEvents(second.data);
    expect(evs.map((e) => e.event)).toContain("message");
    expect(
      evs
        .filter((e) => e.event === "message")
        .map((e) => e.answer)
        .join(""),
    ).toBe("Still here. (turn 2, Bob)");
    expect(evs.at(-1)).toMatchObject({
      event: "message_end",
      conversation_id: conversationId,
    });
    expect(new Set(evs.map((e) => e.conversation_id))).toEqual(new Set([conversationId]));

    // The second request's prompt is the second query; the conversation lists both turns, oldest first.
    expect(JSON.stringify(s.llm.last()?.body.messages)).toContain("again");
    const messages = await client.getConversationMessages("bob", conversationId);
    expect(messages.data.data.map((m: any) => [m.query, m.answer])).toEqual([
      ["hi", "Hello Bob. (turn 1, Bob)"],
      ["again", "Still here. (turn 2, Bob)"],
    ]);
    const conversations = await client.getConversations("bob");
    expect(conversations.data.data.map((c: any) => c.id)).toEqual([conversationId]);
    // Another end user sees neither.
    expect((await client.getConversations("eve")).data.data).toEqual([]);
    const other = await failure(client.getConversationMessages("eve", conversationId));
    expect(other.body).toMatchObject({ code: "not_found", status: 404 });

    const rename = client.renameConversation as (this: ChatClient, ...a: unknown[]) => Promise<any>;
    const renamed = await rename.call(client, conversationId, "Greetings", "bob", false);
    expect(renamed.data).toMatchObject({ id: conversationId, name: "Greetings" });
  }, 120_000);

  it("uses an uploaded file as an input", async () => {
    const { key } = await s.app("files", fileWorkflow());
    const client = workflowClient(key, s.v1);
    const form = new FormData();
    form.append("file", new Blob(["hello from a file"], { type: "text/plain" }), "note.txt");
    form.append("user", "carol");
    const uploaded = await new DifyClient(key, s.v1).fileUpload(form);
    expect(uploaded.status).toBe(201);
    expect(uploaded.data).toMatchObject({
      name: "note.txt",
      size: 17,
      extension: "txt",
      mime_type: "text/plain",
      created_by: "carol",
    });

    const doc = { transfer_method: "local_file", upload_file_id: uploaded.data.id, type: "document" };
    const run = await client.runWorkflow({ doc }, "carol");
    expect(run.data.data).toMatchObject({
      status: "succeeded",
      outputs: { about: "note.txt (17 bytes): hello from a file" },
    });

    const unknown = await failure(client.runWorkflow({ doc: { ...doc, upload_file_id: "nope" } }, "carol"));
    expect(unknown.body).toMatchObject({ code: "invalid_param", status: 400 });
    expect(unknown.body.message).toMatch(/no uploaded file nope/);
  }, 60_000);

  it("stops a running task", async () => {
    const { key } = await s.app("slow", slowWorkflow());
    const client = workflowClient(key, s.v1);
    s.llm.enqueue(reply.text("too late", { delayMs: 60_000 }));
    const streamed = await client.runWorkflow({}, "dave", true);
    const seen: Array<Record<string, any>> = [];
    let stopped: Promise<unknown> | undefined;
    const parser = createParser({
      onEvent: (e) => {
        const ev = JSON.parse(e.data);
        seen.push(ev);
        if (ev.event === "node_started" && ev.data.node_id === "slow")
          stopped = client.sendRequest("POST", `/workflows/tasks/${ev.task_id}/stop`, { user: "dave" });
      },
    });
    for await (const chunk of streamed.data as AsyncIterable<Buffer>) parser.feed(chunk.toString("utf8"));
    expect(((await stopped) as any).data).toEqual({ result: "success" });
    expect(seen.at(-1)).toMatchObject({ event: "workflow_finished", data: { status: "stopped" } });
    const got = await client.sendRequest("GET", `/workflows/run/${seen[0]!.task_id}`);
    expect(got.data.status).toBe("stopped");
  }, 60_000);
});
