/**
 * Advanced-chat streaming (DIFY.md §2.11) with the real LLM client against the replay server on
 * 127.0.0.1: an answer that references an LLM's text streams the model's chunks as they arrive,
 * text_chunk events come in order, and their concatenation is the final answer.
 */
import { describe, expect, it } from "vitest";
import { resumeRun, runWorkflow } from "../../src/engine/run.js";
import { createLlmService } from "../../src/llm/index.js";
import { MemoryRunStore } from "../../src/store/memory/runs.js";
import type { RunEvent } from "../../src/store/run-events.js";
import { buildWorkflow } from "../support/build.js";
import { replayServerPerFile } from "../support/per-file.js";
import { type RecordedRequest, reply } from "../support/replay-server.js";

const server = replayServerPerFile();

const llmService = () =>
  createLlmService({
    endpoints: { ep: { provider: "openai-compatible", baseURL: server.openaiBaseURL, apiKey: "k" } },
    default: "ep",
    retry: { maxRetries: 0 },
  });

const model = { provider: "openai", name: "gpt-4o-mini", mode: "chat", completion_params: {} };
const llm = (id: string, prompt: string) => ({
  id,
  type: "llm",
  model,
  prompt_template: [{ role: "user", text: prompt }],
  context: { enabled: false, variable_selector: [] },
  vision: { enabled: false },
});
const start = { id: "start", type: "start", variables: [] };
const asksFor = (word: string) => (r: RecordedRequest) => JSON.stringify(r.body?.messages ?? []).includes(word);

type Chunk = Extract<RunEvent, { type: "text_chunk" }>;

async function chat(wf: ReturnType<typeof buildWorkflow>, query = "hi") {
  const events: RunEvent[] = [];
  const r = await runWorkflow(wf, { sys: { query }, services: { llm: llmService() }, onEvent: (e) => events.push(e) });
  const chunks = events.filter((e): e is Chunk => e.type === "text_chunk");
  return { r, events, chunks };
}

describe("advanced-chat streaming", () => {
  it("an answer streams the LLM's chunks in order, between its own text segments", async () => {
    server.enqueue(
      reply.text("Paris is the capital.", { chunks: ["Paris", " is", " the", " capital."], chunkDelayMs: 15 }),
    );
    const wf = buildWorkflow({
      mode: "advanced-chat",
      nodes: [
        start,
        llm("llm", "{{#sys.query#}}"),
        { id: "ans", type: "answer", answer: "Answer: {{#llm.text#}} (done)" },
      ],
      edges: [
        ["start", "llm"],
        ["llm", "ans"],
      ],
    });
    const { r, events, chunks } = await chat(wf, "Capital of France?");
    expect(r.status).toBe("succeeded");
    expect(chunks.map((c) => c.text)).toEqual(["Answer: ", "Paris", " is", " the", " capital.", " (done)"]);
    expect(chunks.every((c) => c.nodeId === "ans")).toBe(true);
    expect(chunks.map((c) => c.text).join("")).toBe(r.outputs.answer);
    expect(r.outputs.answer).toBe("Answer: Paris is the capital. (done)");
    // Really streamed: the leading text and the model's chunks go out before the LLM node finishes.
    const llmDone = events.findIndex((e) => e.type === "node_finished" && e.nodeId === "llm");
    const lastModelChunk = events.findIndex((e) => e.type === "text_chunk" && e.text === " capital.");
    expect(events.findIndex((e) => e.type === "text_chunk")).toBeLessThan(
      events.findIndex((e) => e.type === "node_started" && e.nodeId === "llm") + 2,
    );
    expect(lastModelChunk).toBeLessThan(llmDone);
  });

  it("an LLM no answer references stays out of the reply stream", async () => {
    server.when(asksFor("summarise"), reply.text("hidden summary text"));
    server.when(asksFor("reply"), reply.text("visible reply", { chunks: ["visible", " reply"] }));
    const wf = buildWorkflow({
      mode: "advanced-chat",
      nodes: [
        start,
        llm("hidden", "summarise {{#sys.query#}}"),
        llm("shown", "reply to {{#sys.query#}}"),
        { id: "ans", type: "answer", answer: "{{#shown.text#}}" },
      ],
      edges: [
        ["start", "hidden"],
        ["hidden", "shown"],
        ["shown", "ans"],
      ],
    });
    const { r, chunks } = await chat(wf);
    expect(chunks.map((c) => c.text)).toEqual(["visible", " reply"]);
    expect(r.outputs.answer).toBe("visible reply");
  });

  it("an answer after an if-else waits for the branch; the skipped branch's answer never streams", async () => {
    server.enqueue(reply.text("long answer", { chunks: ["long", " answer"] }));
    const wf = buildWorkflow({
      mode: "advanced-chat",
      nodes: [
        start,
        {
          id: "if",
          type: "if-else",
          cases: [
            {
              case_id: "true",
              logical_operator: "and",
              conditions: [{ variable_selector: ["sys", "query"], comparison_operator: "contains", value: "explain" }],
            },
          ],
        },
        llm("llm", "{{#sys.query#}}"),
        { id: "a_long", type: "answer", answer: "[{{#llm.text#}}]" },
        { id: "a_short", type: "answer", answer: "short" },
      ],
      edges: [
        ["start", "if"],
        ["if", "true", "llm"],
        ["llm", "a_long"],
        ["if", "false", "a_short"],
      ],
    });
    const long = await chat(wf, "please explain");
    expect(long.chunks.map((c) => c.text)).toEqual(["[", "long", " answer", "]"]);
    expect(long.r.outputs.answer).toBe("[long answer]");
    const short = await chat(wf, "hello");
    expect(short.chunks.map((c) => [c.nodeId, c.text])).toEqual([["a_short", "short"]]);
    expect(short.r.outputs.answer).toBe("short");
    expect(server.requests).toHaveLength(1);
  });

  it("two answers on parallel branches stream one session at a time, in graph order, whatever finishes first", async () => {
    server.when(asksFor("first"), reply.text("one one", { chunks: ["one", " one"], delayMs: 150 }));
    server.when(asksFor("second"), reply.text("two two", { chunks: ["two", " two"] }));
    const wf = buildWorkflow({
      mode: "advanced-chat",
      nodes: [
        start,
        llm("l1", "first"),
        llm("l2", "second"),
        { id: "a1", type: "answer", answer: "A:{{#l1.text#}}\n" },
        { id: "a2", type: "answer", answer: "B:{{#l2.text#}}" },
      ],
      edges: [
        ["start", "l1"],
        ["start", "l2"],
        ["l1", "a1"],
        ["l2", "a2"],
      ],
    });
    const { r, chunks } = await chat(wf);
    expect(r.status).toBe("succeeded");
    const text = chunks.map((c) => c.text).join("");
    expect(text).toBe("A:one one\nB:two two");
    expect(r.outputs.answer).toBe(text);
    // a1's session held the stream, so l2's text (finished long before) went out whole afterwards
    expect(chunks.map((c) => c.nodeId)).toEqual(["a1", "a1", "a1", "a1", "a2"]);
  });

  it("answers chained after each other and a conversation write stream in order", async () => {
    server.enqueue(reply.text("model says hi", { chunks: ["model", " says", " hi"] }));
    const wf = buildWorkflow({
      mode: "advanced-chat",
      conversation_variables: [{ name: "turns", value_type: "number", value: 0 }],
      nodes: [
        start,
        { id: "a1", type: "answer", answer: "You: {{#sys.query#}}\n" },
        llm("llm", "{{#sys.query#}}"),
        { id: "a2", type: "answer", answer: "Bot: {{#llm.text#}}\n" },
        {
          id: "inc",
          type: "assigner",
          version: "2",
          items: [{ variable_selector: ["conversation", "turns"], input_type: "constant", operation: "+=", value: 1 }],
        },
        { id: "a3", type: "answer", answer: "turn {{#conversation.turns#}}" },
      ],
      edges: [
        ["start", "a1"],
        ["a1", "llm"],
        ["llm", "a2"],
        ["a2", "inc"],
        ["inc", "a3"],
      ],
    });
    const { r, chunks } = await chat(wf, "hello");
    expect(chunks.map((c) => c.text)).toEqual(["You: hello\n", "Bot: ", "model", " says", " hi", "\n", "turn 1"]);
    expect(r.outputs.answer).toBe("You: hello\nBot: model says hi\nturn 1");
    expect(r.conversation.turns).toBe(1);
  });

  it("a resumed run replays the reply: committed answers stream again and the answer is complete", async () => {
    server.enqueue(reply.status(500), reply.text("second try", { chunks: ["second", " try"] }));
    const wf = buildWorkflow({
      mode: "advanced-chat",
      nodes: [
        start,
        { id: "a1", type: "answer", answer: "Q={{#sys.query#}};" },
        llm("llm", "{{#sys.query#}}"),
        { id: "a2", type: "answer", answer: "A={{#llm.text#}}" },
      ],
      edges: [
        ["start", "a1"],
        ["a1", "llm"],
        ["llm", "a2"],
      ],
    });
    const store = new MemoryRunStore();
    const first = await runWorkflow(wf, { store, sys: { query: "q" }, services: { llm: llmService() } });
    expect(first.status).toBe("failed");
    const chunks: string[] = [];
    const again = await resumeRun(first.runId, {
      store,
      sys: { query: "q" },
      services: { llm: llmService() },
      onEvent: (e) => e.type === "text_chunk" && chunks.push(e.text),
    });
    expect(again.status).toBe("succeeded");
    expect(again.outputs.answer).toBe("Q=q;A=second try");
    expect(chunks.join("")).toBe("Q=q;A=second try");
    // a1 was committed by the first attempt and not executed again
    expect(again.trace.filter((t) => t.nodeId === "a1")).toHaveLength(1);
  });
});
