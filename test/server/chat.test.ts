import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseLlmConfig } from "../../src/llm/index.js";
import { type ReplayServer, reply, startReplayServer } from "../support/replay-server.js";
import { readSse, startTestServer, type TestServer } from "./helpers.js";

const compact = {
  nodes_info: [
    { id: "1", type: "start", param: { variables: [["text", "string"]] } },
    { id: "2", type: "template-transform", param: { variables: [["t", ["text", "1"]]], template: "<{{ t }}>" } },
    { id: "3", type: "end", param: { outputs: [["result", ["output", "2"]]] } },
  ],
  edges: [
    ["1", 0, "2"],
    ["2", 0, "3"],
  ],
};

let llm: ReplayServer;
let s: TestServer;
beforeAll(async () => {
  llm = await startReplayServer();
  s = await startTestServer({
    llmConfig: parseLlmConfig({
      endpoints: { ep: { provider: "openai-compatible", baseURL: llm.openaiBaseURL, model: "replay" } },
      default: "ep",
      retry: { maxRetries: 0 },
    }),
  });
});
afterAll(async () => {
  await s.stop();
  await llm.close();
});

describe("agent chat", () => {
  it("streams agent events, applies the change with apply: true, and records the conversation", async () => {
    const created = (await (
      await s.api("/api/apps", { method: "POST", json: { name: "Wrapper", mode: "workflow" } })
    ).json()) as any;
    const id = created.app.id;
    llm.enqueue(
      reply.toolCall("get_current_workflow", {}),
      reply.toolCall("update_workflow", { workflow: compact }),
      reply.toolCall("test_workflow", { inputs: { text: "yo" } }),
      reply.text("Done: the text is now wrapped in angle brackets."),
    );
    const events = await readSse(
      await s.api(`/api/apps/${id}/chat`, {
        method: "POST",
        json: { message: "wrap the text in angle brackets", apply: true },
      }),
    );
    const types = events.map((e) => e.data.type);
    expect(types).toContain("tool_execution");
    expect(types).toContain("draft");
    expect(types).toContain("proposal");
    expect(types.at(-1)).toBe("done");
    // Applied to the draft (its next revision), not as a version: /v1 and MCP keep the published version.
    const applied = events.find((e) => e.data.type === "applied")!.data;
    expect(applied.revision).toBeGreaterThan(1);
    // The blank app's start and end are kept (by id); the template node is new.
    expect(applied.diff.nodesAdded).toHaveLength(1);
    expect(applied.diff.nodes.added[0].type).toBe("template-transform");
    const test = events.find((e) => e.data.type === "tool_result" && e.data.tool === "test_workflow")!.data;
    expect(test.result.outputs).toEqual({ result: "<yo>" });
    expect(events.at(-1)!.data).toMatchObject({
      updated: true,
      version: 1,
      revision: applied.revision,
      notApplied: false,
      outcome: { kind: "applied", revision: applied.revision },
      reply: "Done: the text is now wrapped in angle brackets.",
    });

    const draft = (await (await s.api(`/api/apps/${id}/draft`)).json()) as any;
    expect(draft.revision).toBe(applied.revision);
    expect(draft.workflow.nodes.map((n: any) => n.type)).toEqual(["start", "template-transform", "end"]);
    expect(draft.workflow.name).toBe("Wrapper");
    const cur = (await (await s.api(`/api/apps/${id}/workflow`)).json()) as any;
    expect(cur.version).toBe(1);
    const versions = (await (await s.api(`/api/apps/${id}/versions`)).json()) as any;
    expect(versions.versions.map((v: any) => v.source)).toEqual(["create"]);
    const msgs = (await (await s.api(`/api/apps/${id}/messages`)).json()) as any;
    expect(msgs.messages.map((m: any) => [m.role, m.version ?? null, m.outcome?.kind ?? null])).toEqual([
      ["user", null, null],
      // Applied to the draft: the reply names no version.
      ["assistant", null, "applied"],
    ]);
    // The agent saw the app's workflow (the blank one) when it asked for it.
    const toolMsg = llm.requests[1]!.body.messages.find((m: any) => m.role === "tool");
    expect(toolMsg.content).toContain("start");
  });

  it("reports a model failure as an error event without storing a version", async () => {
    const created = (await (await s.api("/api/apps", { method: "POST", json: { name: "Fails" } })).json()) as any;
    llm.enqueue(reply.status(400, { message: "bad model" }));
    const events = await readSse(
      await s.api(`/api/apps/${created.app.id}/chat`, { method: "POST", json: { message: "anything" } }),
    );
    expect(events.some((e) => e.data.type === "error")).toBe(true);
    expect(events.at(-1)!.data).toMatchObject({
      type: "done",
      updated: false,
      version: 1,
      outcome: { kind: "unchanged" },
    });
    const msgs = (await (await s.api(`/api/apps/${created.app.id}/messages`)).json()) as any;
    expect(msgs.messages.map((m: any) => [m.role, m.outcome?.kind ?? null])).toEqual([
      ["user", null],
      ["assistant", "unchanged"],
    ]);
  });

  it("rejects an empty message", async () => {
    const created = (await (await s.api("/api/apps", { method: "POST", json: { name: "E" } })).json()) as any;
    const res = await s.api(`/api/apps/${created.app.id}/chat`, { method: "POST", json: { message: " " } });
    expect(res.status).toBe(400);
  });

  it("lists the configured endpoints without secrets", async () => {
    const res = (await (await s.api("/api/models")).json()) as any;
    expect(res.configured).toBe(true);
    expect(res.default).toBe("ep");
    expect(res.endpoints).toEqual([
      { name: "ep", provider: "openai-compatible", baseURL: llm.openaiBaseURL, model: "replay", defaultModel: null },
    ]);
  });
});
