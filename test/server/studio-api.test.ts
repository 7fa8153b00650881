import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DirFileService } from "../../src/tools/files.js";
import { readSse, startTestServer, type TestServer } from "./helpers.js";

// The routes the web studio needs beyond the editing API: available values, uploads, chat conversations.

const chatWorkflow = {
  weft: 1,
  name: "counter",
  mode: "advanced-chat",
  conversation_variables: [{ name: "turns", value_type: "number", value: 0 }],
  nodes: [
    { id: "start", type: "start", title: "Start", config: { variables: [] } },
    {
      id: "count",
      type: "assigner",
      title: "Count turns",
      config: {
        version: "2",
        items: [{ variable_selector: ["conversation", "turns"], operation: "+=", input_type: "constant", value: 1 }],
      },
    },
    {
      id: "reply",
      type: "answer",
      title: "Reply",
      config: { answer: "turn {{#conversation.turns#}}: {{#sys.query#}}" },
    },
  ],
  edges: [
    { source: "start", target: "count" },
    { source: "count", target: "reply" },
  ],
};

const fileWorkflow = {
  weft: 1,
  name: "file echo",
  mode: "workflow",
  nodes: [
    {
      id: "start",
      type: "start",
      title: "Start",
      config: { variables: [{ variable: "doc", label: "Document", type: "file", required: true }] },
    },
    {
      id: "name",
      type: "template-transform",
      title: "Name",
      config: {
        variables: [{ variable: "f", value_selector: ["start", "doc"] }],
        template: "{{ f.filename }} ({{ f.size }} bytes)",
      },
    },
    {
      id: "end",
      type: "end",
      title: "End",
      config: { outputs: [{ variable: "name", value_selector: ["name", "output"] }] },
    },
  ],
  edges: [
    { source: "start", target: "name" },
    { source: "name", target: "end" },
  ],
};

let s: TestServer;
let filesDir: string;
beforeAll(async () => {
  filesDir = mkdtempSync(join(tmpdir(), "weft-files-"));
  s = await startTestServer({ services: { files: new DirFileService(filesDir) } });
}, 60_000);
afterAll(async () => {
  await s?.stop();
  rmSync(filesDir, { recursive: true, force: true });
});

async function createApp(workflow: unknown): Promise<string> {
  const res = await s.api("/api/apps", {
    method: "POST",
    json: { name: (workflow as any).name, mode: (workflow as any).mode, workflow },
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as any).app.id;
}

async function run(appId: string, body: Record<string, unknown>): Promise<{ start: any; finished: any }> {
  const res = await s.api(`/api/apps/${appId}/runs`, { method: "POST", json: body });
  const start = (await res.json()) as any;
  expect(res.status, JSON.stringify(start)).toBe(202);
  const events = await readSse(await s.api(`/api/runs/${start.runId}/events`));
  return { start, finished: events.at(-1)!.data };
}

describe("available values at a node", () => {
  it("lists exactly what the analyser finds upstream, for an unsaved draft", async () => {
    const res = await s.api("/api/analyse/available", {
      method: "POST",
      json: { workflow: fileWorkflow, nodeId: "end" },
    });
    expect(res.status).toBe(200);
    const { available } = (await res.json()) as {
      available: Array<{ selector: string[]; type: string; source: string }>;
    };
    const nodeValues = available.filter((a) => a.source === "node").map((a) => a.selector.join("."));
    expect(nodeValues).toEqual(["start.doc", "name.output"]);
    expect(available.find((a) => a.selector.join(".") === "start.doc")!.type).toBe("file");
    // The template node cannot read its own output, nor anything downstream.
    const atName = (await (
      await s.api("/api/analyse/available", { method: "POST", json: { workflow: fileWorkflow, nodeId: "name" } })
    ).json()) as { available: Array<{ selector: string[]; source: string }> };
    expect(atName.available.filter((a) => a.source === "node").map((a) => a.selector.join("."))).toEqual(["start.doc"]);
    // Chat globals only in chat apps.
    const chat = (await (
      await s.api("/api/analyse/available", { method: "POST", json: { workflow: chatWorkflow, nodeId: "reply" } })
    ).json()) as { available: Array<{ selector: string[] }> };
    const sels = chat.available.map((a) => a.selector.join("."));
    expect(sels).toContain("conversation.turns");
    expect(sels).toContain("sys.query");
  });

  it("answers typed errors for a missing or unknown node and a broken draft", async () => {
    const none = await s.api("/api/analyse/available", { method: "POST", json: { workflow: fileWorkflow } });
    expect(none.status).toBe(400);
    expect(((await none.json()) as any).error.code).toBe("request.missing_node_id");
    const unknown = await s.api("/api/analyse/available", {
      method: "POST",
      json: { workflow: fileWorkflow, nodeId: "zzz" },
    });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as any).error.code).toBe("node.not_found");
    const broken = await s.api("/api/analyse/available", {
      method: "POST",
      json: { workflow: { nodes: 3 }, nodeId: "a" },
    });
    expect(broken.status).toBe(422);
    expect(((await broken.json()) as any).error.diagnostics.length).toBeGreaterThan(0);
  });
});

describe("file uploads for file inputs", () => {
  it("stores an upload in the file service and runs with it as the input", async () => {
    const form = new FormData();
    form.append("file", new Blob(["hello file"], { type: "text/plain" }), "notes.txt");
    const up = await s.api("/api/files", { method: "POST", body: form });
    expect(up.status).toBe(201);
    const { file } = (await up.json()) as { file: any };
    expect(file).toMatchObject({
      filename: "notes.txt",
      extension: ".txt",
      size: 10,
      transfer_method: "local_file",
      type: "document",
    });
    const stored = await new DirFileService(filesDir).get(file);
    expect(new TextDecoder().decode(stored)).toBe("hello file");

    const appId = await createApp(fileWorkflow);
    const { finished } = await run(appId, { inputs: { doc: file } });
    expect(finished.status).toBe("succeeded");
    expect(finished.outputs.name).toBe("notes.txt (10 bytes)");
  });

  it("refuses a body that is not a multipart file", async () => {
    const raw = await s.api("/api/files", { method: "POST", body: "x", headers: { "content-type": "text/plain" } });
    expect(raw.status).toBe(400);
    expect(((await raw.json()) as any).error.code).toBe("request.not_multipart");
    const form = new FormData();
    form.append("other", "x");
    const empty = await s.api("/api/files", { method: "POST", body: form });
    expect(empty.status).toBe(400);
    expect(((await empty.json()) as any).error.code).toBe("request.missing_file");
  });

  it("says how to configure a file store when there is none", async () => {
    const bare = await startTestServer();
    try {
      const form = new FormData();
      form.append("file", new Blob(["x"]), "x.txt");
      const res = await bare.api("/api/files", { method: "POST", body: form });
      expect(res.status).toBe(503);
      const err = ((await res.json()) as any).error;
      expect(err.code).toBe("files.not_configured");
      expect(err.message).toContain("files.dir");
    } finally {
      await bare.stop();
    }
  });
});

describe("chat conversations", () => {
  it("carries conversation variables and the dialogue count from one turn to the next", async () => {
    const appId = await createApp(chatWorkflow);
    const one = await run(appId, { inputs: {}, query: "hi" });
    expect(one.finished.outputs.answer).toBe("turn 1: hi");
    const conversationId = one.start.conversationId as string;
    expect(conversationId).toBeTruthy();
    const two = await run(appId, { inputs: {}, query: "again", conversationId });
    expect(two.start.conversationId).toBe(conversationId);
    expect(two.finished.outputs.answer).toBe("turn 2: again");
    const conv = (await (await s.api(`/api/apps/${appId}/conversations/${conversationId}`)).json()) as any;
    expect(conv).toMatchObject({ id: conversationId, variables: { turns: 2 }, dialogueCount: 2 });
    // A run without a conversation id starts a new conversation from the defaults.
    const fresh = await run(appId, { inputs: {}, query: "new" });
    expect(fresh.start.conversationId).not.toBe(conversationId);
    expect(fresh.finished.outputs.answer).toBe("turn 1: new");
  });

  it("refuses a conversation of another app or an unknown one", async () => {
    const a = await createApp(chatWorkflow);
    const b = await createApp(chatWorkflow);
    const { start } = await run(a, { inputs: {}, query: "x" });
    const res = await s.api(`/api/apps/${b}/runs`, {
      method: "POST",
      json: { inputs: {}, query: "y", conversationId: start.conversationId },
    });
    expect(res.status).toBe(404);
    expect(((await res.json()) as any).error.code).toBe("conversation.not_found");
    const get = await s.api(`/api/apps/${b}/conversations/${start.conversationId}`);
    expect(get.status).toBe(404);
  });
});
