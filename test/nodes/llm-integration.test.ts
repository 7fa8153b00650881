/**
 * The model-calling nodes inside real runs: engine + real LLM client (src/llm, AI SDK) talking HTTP to
 * the scripted replay server on 127.0.0.1. Nothing above the HTTP layer is faked for the model.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { runWorkflow } from "../../src/engine/run.js";
import type { ToolInvocation, ToolService } from "../../src/ir/services.js";
import { createLlmService } from "../../src/llm/index.js";
import type { RunEvent } from "../../src/store/run-events.js";
import { createHttpService } from "../../src/tools/http.js";
import { buildWorkflow } from "../support/build.js";
import { type ReplayServer, reply, startReplayServer } from "../support/replay-server.js";
import { startTestServer, type TestServer } from "./http-server.js";

let server: ReplayServer;
let web: TestServer;
beforeAll(async () => {
  server = await startReplayServer();
  web = await startTestServer();
});
afterAll(async () => {
  await server.close();
  await web.close();
});
beforeEach(() => server.reset());

const llmService = () =>
  createLlmService({
    endpoints: { ep: { provider: "openai-compatible", baseURL: server.openaiBaseURL, apiKey: "test-key" } },
    default: "ep",
    retry: { maxRetries: 0 },
  });

const model = { provider: "openai", name: "qwen2.5-7b", mode: "chat", completion_params: { temperature: 0.1 } };
const start = { id: "start", type: "start", variables: [{ variable: "q", type: "paragraph", required: true }] };

function userMessages(body: { messages: Array<{ role: string; content: unknown }> }) {
  return body.messages.map((m) => ({
    role: m.role,
    content: typeof m.content === "string" ? m.content : JSON.stringify(m.content),
  }));
}

describe("llm node over the real client", () => {
  it("sends the rendered messages, streams the answer and ends the run with it", async () => {
    server.enqueue(reply.text("Paris is the capital.", { usage: { input: 20, output: 6 } }));
    const wf = buildWorkflow({
      nodes: [
        start,
        {
          id: "llm",
          type: "llm",
          model,
          prompt_template: [
            { role: "system", text: "Answer briefly." },
            { role: "user", text: "{{#start.q#}}" },
          ],
          context: { enabled: false, variable_selector: [] },
          vision: { enabled: false },
        },
        {
          id: "end",
          type: "end",
          outputs: [
            { variable: "answer", value_selector: ["llm", "text"] },
            { variable: "usage", value_selector: ["llm", "usage"] },
          ],
        },
      ],
      edges: [
        ["start", "llm"],
        ["llm", "end"],
      ],
    });
    const events: RunEvent[] = [];
    const res = await runWorkflow(wf, {
      inputs: { q: "Capital of France?" },
      services: { llm: llmService() },
      onEvent: (e) => events.push(e),
    });
    expect(res.error).toBeUndefined();
    expect(res.status).toBe("succeeded");
    expect(res.outputs.answer).toBe("Paris is the capital.");
    expect(res.outputs.usage).toEqual({ prompt_tokens: 20, completion_tokens: 6, total_tokens: 26 });
    const sent = server.requests[0]!;
    expect(sent.stream).toBe(true);
    expect(sent.body.model).toBe("qwen2.5-7b");
    expect(sent.body.temperature).toBe(0.1);
    expect(userMessages(sent.body)).toEqual([
      { role: "system", content: "Answer briefly." },
      { role: "user", content: "Capital of France?" },
    ]);
    const chunks = events.filter((e): e is Extract<RunEvent, { type: "text_chunk" }> => e.type === "text_chunk");
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.map((c) => c.text).join("")).toBe("Paris is the capital.");
  });

  it("structured output comes back parsed", async () => {
    server.enqueue(reply.json({ city: "Paris", country: "France" }));
    const schema = {
      type: "object",
      properties: { city: { type: "string" }, country: { type: "string" } },
      required: ["city", "country"],
    };
    const wf = buildWorkflow({
      nodes: [
        start,
        {
          id: "llm",
          type: "llm",
          model,
          prompt_template: [{ role: "user", text: "{{#start.q#}}" }],
          structured_output: { schema },
          structured_output_switch_on: true,
        },
        {
          id: "end",
          type: "end",
          outputs: [{ variable: "city", value_selector: ["llm", "structured_output", "city"] }],
        },
      ],
      edges: [
        ["start", "llm"],
        ["llm", "end"],
      ],
    });
    const res = await runWorkflow(wf, { inputs: { q: "Where is the Louvre?" }, services: { llm: llmService() } });
    expect(res.error).toBeUndefined();
    expect(res.outputs.city).toBe("Paris");
  });

  it("without an LLM service the run fails with a configuration error naming the problem", async () => {
    const wf = buildWorkflow({
      nodes: [
        start,
        { id: "llm", type: "llm", model, prompt_template: [{ role: "user", text: "{{#start.q#}}" }] },
        { id: "end", type: "end", outputs: [] },
      ],
      edges: [
        ["start", "llm"],
        ["llm", "end"],
      ],
    });
    const res = await runWorkflow(wf, { inputs: { q: "x" } });
    expect(res.status).toBe("failed");
    expect(res.error?.code).toBe("llm.not_configured");
  });
});

describe("question-classifier over the real client", () => {
  const wf = () =>
    buildWorkflow({
      nodes: [
        start,
        {
          id: "qc",
          type: "question-classifier",
          model,
          query_variable_selector: ["start", "q"],
          classes: [
            { id: "1", name: "Billing" },
            { id: "2", name: "Technical" },
          ],
          instruction: "",
        },
        { id: "e1", type: "end", outputs: [{ variable: "route", value_selector: ["qc", "class_name"] }] },
        {
          id: "e2",
          type: "end",
          outputs: [
            { variable: "route", value_selector: ["qc", "class_name"] },
            { variable: "id", value_selector: ["qc", "class_id"] },
          ],
        },
      ],
      edges: [
        ["start", "qc"],
        ["qc", "1", "e1"],
        ["qc", "2", "e2"],
      ],
    });

  it("routes to the branch of the class the model chose", async () => {
    server.enqueue(reply.json({ keywords: ["crash"], category_id: "2", category_name: "Technical" }));
    const res = await runWorkflow(wf(), { inputs: { q: "The app crashes on start" }, services: { llm: llmService() } });
    expect(res.error).toBeUndefined();
    expect(res.outputs).toEqual({ route: "Technical", id: "2" });
    const sentText = JSON.stringify(server.requests[0]!.body.messages);
    expect(sentText).toContain("The app crashes on start");
    expect(sentText).toContain("category_id");
  });

  it("falls back to the first class when the answer is not usable JSON, even after the client's repair turn", async () => {
    server.enqueue(reply.jsonText("Billing, I guess"), reply.jsonText("still not json"));
    const res = await runWorkflow(wf(), { inputs: { q: "Invoice?" }, services: { llm: llmService() } });
    expect(res.error).toBeUndefined();
    expect(res.outputs).toEqual({ route: "Billing" });
  });
});

describe("parameter-extractor over the real client", () => {
  const wf = (mode: string) =>
    buildWorkflow({
      nodes: [
        start,
        {
          id: "pe",
          type: "parameter-extractor",
          model,
          query: ["start", "q"],
          reasoning_mode: mode,
          instruction: "",
          parameters: [
            { name: "city", type: "string", description: "city", required: true },
            { name: "nights", type: "number", description: "nights", required: true },
          ],
        },
        {
          id: "end",
          type: "end",
          outputs: [
            { variable: "city", value_selector: ["pe", "city"] },
            { variable: "nights", value_selector: ["pe", "nights"] },
            { variable: "ok", value_selector: ["pe", "__is_success"] },
          ],
        },
      ],
      edges: [
        ["start", "pe"],
        ["pe", "end"],
      ],
    });

  it("function_call mode reads the tool call arguments", async () => {
    server.enqueue(reply.toolCall("extract_parameters", { city: "Kyoto", nights: 3 }));
    const res = await runWorkflow(wf("function_call"), {
      inputs: { q: "3 nights in Kyoto" },
      services: { llm: llmService() },
    });
    expect(res.error).toBeUndefined();
    expect(res.outputs).toEqual({ city: "Kyoto", nights: 3, ok: 1 });
    const tools = server.requests[0]!.body.tools as Array<{ function: { name: string; parameters: unknown } }>;
    expect(tools[0]!.function.name).toBe("extract_parameters");
  });

  it("prompt mode parses JSON from the text; garbage gives defaults and __is_success 0", async () => {
    server.enqueue(reply.text('{"city": "Lima", "nights": 2}'), reply.text("no idea"));
    const ok = await runWorkflow(wf("prompt"), { inputs: { q: "Lima, 2 nights" }, services: { llm: llmService() } });
    expect(ok.outputs).toEqual({ city: "Lima", nights: 2, ok: 1 });
    expect(server.requests[0]!.body.tools).toBeUndefined();
    const bad = await runWorkflow(wf("prompt"), { inputs: { q: "???" }, services: { llm: llmService() } });
    expect(bad.status).toBe("succeeded");
    expect(bad.outputs).toEqual({ city: "", nights: 0, ok: 0 });
  });
});

describe("agent over the real client", () => {
  it("runs the function-calling loop through a tool and answers", async () => {
    server.enqueue(reply.toolCall("calc", { expr: "6*7" }, { id: "call_1" }), reply.text("It is 42."));
    const invocations: ToolInvocation[] = [];
    const tools: ToolService = {
      async invoke(inv) {
        invocations.push(inv);
        return { text: "42", files: [], json: [] };
      },
      list: () => [
        {
          name: "calc",
          description: "Evaluate arithmetic",
          parameters: { type: "object", properties: { expr: { type: "string" } }, required: ["expr"] },
        },
      ],
    };
    const wf = buildWorkflow({
      nodes: [
        start,
        {
          id: "ag",
          type: "agent",
          agent_strategy_provider_name: "langgenius/agent/agent",
          agent_strategy_name: "function_calling",
          agent_parameters: {
            model: {
              type: "constant",
              value: { provider: "openai", model: "qwen2.5-7b", mode: "chat", completion_params: {} },
            },
            instruction: { type: "constant", value: "Use tools for maths." },
            query: { type: "constant", value: "{{#start.q#}}" },
            maximum_iterations: { type: "constant", value: 3 },
          },
        },
        { id: "end", type: "end", outputs: [{ variable: "answer", value_selector: ["ag", "text"] }] },
      ],
      edges: [
        ["start", "ag"],
        ["ag", "end"],
      ],
    });
    const res = await runWorkflow(wf, { inputs: { q: "What is 6*7?" }, services: { llm: llmService(), tools } });
    expect(res.error).toBeUndefined();
    expect(res.outputs.answer).toBe("It is 42.");
    expect(invocations[0]).toMatchObject({ toolName: "calc", parameters: { expr: "6*7" } });
    const second = server.requests[1]!.body.messages as Array<{
      role: string;
      content?: unknown;
      tool_call_id?: string;
    }>;
    expect(second.at(-1)).toMatchObject({ role: "tool", tool_call_id: "call_1" });
  });
});

describe("http-request in a run with the guarded client", () => {
  const wf = () =>
    buildWorkflow({
      nodes: [
        start,
        {
          id: "h",
          type: "http-request",
          method: "POST",
          url: `${web.base}/echo`,
          headers: "",
          params: "",
          authorization: { type: "no-auth" },
          body: { type: "json", data: [{ type: "text", value: '{"q": "{{#start.q#}}"}' }] },
        },
        {
          id: "end",
          type: "end",
          outputs: [
            { variable: "status", value_selector: ["h", "status_code"] },
            { variable: "body", value_selector: ["h", "body"] },
          ],
        },
      ],
      edges: [
        ["start", "h"],
        ["h", "end"],
      ],
    });

  it("posts when the owner allows private targets, and is refused otherwise", async () => {
    const ok = await runWorkflow(wf(), {
      inputs: { q: "ping" },
      services: { http: createHttpService({ allowPrivate: true }) },
    });
    expect(ok.error).toBeUndefined();
    expect(ok.outputs.status).toBe(200);
    expect(JSON.parse(JSON.parse(ok.outputs.body as string).body)).toEqual({ q: "ping" });
    const refused = await runWorkflow(wf(), { inputs: { q: "ping" }, services: { http: createHttpService() } });
    expect(refused.status).toBe("failed");
    expect(refused.error).toMatchObject({ code: "http.blocked_address", nodeId: "h" });
  });
});
