// The workflows bench/llm.ts times reach their end with the model's answer (a classifier wired to the end on
// a port it never leaves by ended empty, so the bench timed a run that skipped its end).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jsonWf, streamWf } from "../../bench/support/llm-workflows.js";
import { runWorkflow } from "../../src/engine/run.js";
import { createLlmService, parseLlmConfig } from "../../src/llm/index.js";
import { type ReplayServer, reply, startReplayServer } from "../support/replay-server.js";

describe("bench/llm.ts workflows", () => {
  let server: ReplayServer;
  beforeAll(async () => {
    server = await startReplayServer();
    server.when((r) => r.api === "openai-chat" && r.stream, reply.text("Paris."), { times: Infinity });
    server.when(
      (r) => r.api === "openai-chat" && !r.stream,
      reply.json({ category_id: "1", category_name: "Geography" }),
      { times: Infinity },
    );
  });
  afterAll(async () => {
    await server?.close();
  });
  const llm = () =>
    createLlmService(
      parseLlmConfig({
        endpoints: { ep: { provider: "openai-compatible", baseURL: server.openaiBaseURL, apiKey: "k", model: "m" } },
        default: "ep",
        retry: { maxRetries: 0 },
      }),
    );

  it("the JSON case ends with the class the classifier chose", async () => {
    const res = await runWorkflow(jsonWf, { inputs: { q: "Capital of France?" }, services: { llm: llm() } });
    expect(res.status).toBe("succeeded");
    expect(res.outputs).toEqual({ c: "Geography" });
  });

  it("the streaming case ends with the streamed text", async () => {
    const res = await runWorkflow(streamWf, { inputs: { q: "Capital of France?" }, services: { llm: llm() } });
    expect(res.status).toBe("succeeded");
    expect(res.outputs).toEqual({ a: "Paris." });
  });
});
