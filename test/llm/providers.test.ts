import { describe, expect, it } from "vitest";
import type { LlmConfigInput, ProviderKind } from "../../src/llm/index.js";
import { createLlmService } from "../../src/llm/index.js";
import { replayServerPerFile } from "../support/per-file.js";
import { reply } from "../support/replay-server.js";

const server = replayServerPerFile();

interface Case {
  kind: ProviderKind;
  baseURL: () => string;
  path: RegExp;
  model: string;
}

const cases: Case[] = [
  {
    kind: "openai-compatible",
    baseURL: () => server.openaiBaseURL,
    path: /\/v1\/chat\/completions$/,
    model: "qwen2.5-7b",
  },
  { kind: "openai", baseURL: () => server.openaiBaseURL, path: /\/v1\/chat\/completions$/, model: "gpt-4o-mini" },
  { kind: "ollama", baseURL: () => server.openaiBaseURL, path: /\/v1\/chat\/completions$/, model: "llama3.2" },
  {
    kind: "anthropic",
    baseURL: () => server.anthropicBaseURL,
    path: /\/v1\/messages$/,
    model: "claude-3-5-haiku-latest",
  },
  {
    kind: "gemini",
    baseURL: () => server.geminiBaseURL,
    path: /\/v1beta\/models\/gemini-2.0-flash:(stream)?generateContent$/,
    model: "gemini-2.0-flash",
  },
];

function serviceFor(c: Case) {
  const config: LlmConfigInput = {
    endpoints: { ep: { provider: c.kind, baseURL: c.baseURL(), apiKey: "test-key" } },
    default: "ep",
    retry: { maxRetries: 0 },
  };
  return createLlmService(config);
}

const model = (c: Case) => ({ provider: "whatever", name: c.model });

describe.each(cases)("$kind against the replay server", (c) => {
  it("answers a text chat and reports usage and finish reason", async () => {
    server.enqueue(reply.text("Hello there.", { usage: { input: 12, output: 3 } }));
    const llm = serviceFor(c);
    const res = await llm.chat({
      model: model(c),
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "Say hello" },
      ],
    });
    expect(res.text).toBe("Hello there.");
    expect(res.toolCalls).toEqual([]);
    expect(res.finishReason).toBe("stop");
    expect(res.usage).toEqual({ promptTokens: 12, completionTokens: 3, totalTokens: 15 });
    expect(llm.usage()).toMatchObject({ calls: 1, promptTokens: 12, completionTokens: 3, totalTokens: 15 });

    const sent = server.requests[0];
    expect(sent?.path).toMatch(c.path);
    expect(sent?.stream).toBe(false);
    // The system prompt and the user text reach the wire, wherever each format puts them.
    expect(sent?.rawBody).toContain("Be brief.");
    expect(sent?.rawBody).toContain("Say hello");
    if (c.kind !== "gemini") expect(sent?.model).toBe(c.model);
  });

  it("streams text deltas through onText", async () => {
    server.enqueue(reply.text("one two three four", { usage: { input: 4, output: 4 } }));
    const deltas: string[] = [];
    const res = await serviceFor(c).chat({
      model: model(c),
      messages: [{ role: "user", content: "count" }],
      onText: (d) => deltas.push(d),
    });
    expect(server.requests[0]?.stream).toBe(true);
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join("")).toBe("one two three four");
    expect(res.text).toBe("one two three four");
    expect(res.usage.totalTokens).toBe(8);
  });

  it("sends tool specs and returns the model's tool call", async () => {
    server.enqueue(reply.toolCall("get_weather", { city: "Paris", days: 2 }, { id: "call_abc" }));
    const res = await serviceFor(c).chat({
      model: model(c),
      messages: [{ role: "user", content: "Weather in Paris?" }],
      tools: [
        {
          name: "get_weather",
          description: "Forecast for a city",
          parameters: {
            type: "object",
            properties: { city: { type: "string" }, days: { type: "integer" } },
            required: ["city"],
          },
        },
      ],
    });
    expect(res.toolCalls).toHaveLength(1);
    expect(res.toolCalls[0]?.name).toBe("get_weather");
    expect(res.toolCalls[0]?.arguments).toEqual({ city: "Paris", days: 2 });
    expect(server.requests[0]?.rawBody).toContain("get_weather");
    expect(server.requests[0]?.rawBody).toContain("Forecast for a city");
    if (c.kind !== "gemini") expect(res.toolCalls[0]?.id).toBe("call_abc");
    if (c.kind !== "gemini") expect(res.finishReason).toBe("tool_calls");
  });

  it.each([false, true])("separates reasoning from the answer (streaming: %s)", async (streaming) => {
    if (c.kind === "openai") return; // OpenAI's chat API sends no reasoning text.
    server.enqueue(reply.text("42", { reasoning: "six times seven" }));
    const res = await serviceFor(c).chat({
      model: model(c),
      messages: [{ role: "user", content: "6*7?" }],
      ...(streaming ? { onText: () => {} } : {}),
    });
    expect(res.text).toBe("42");
    expect(res.reasoning).toBe("six times seven");
  });

  it("streams a tool call", async () => {
    server.enqueue(reply.toolCall("lookup", { q: "weft" }));
    const res = await serviceFor(c).chat({
      model: model(c),
      messages: [{ role: "user", content: "look it up" }],
      tools: [
        {
          name: "lookup",
          description: "search",
          parameters: { type: "object", properties: { q: { type: "string" } } },
        },
      ],
      onText: () => {},
    });
    expect(res.toolCalls.map((t) => [t.name, t.arguments])).toEqual([["lookup", { q: "weft" }]]);
  });

  it("round-trips a tool result in the conversation", async () => {
    server.enqueue(reply.text("It is sunny."));
    const res = await serviceFor(c).chat({
      model: model(c),
      messages: [
        { role: "user", content: "Weather?" },
        {
          role: "assistant",
          content: "",
          toolCalls: [{ id: "call_1", name: "get_weather", arguments: { city: "Paris" } }],
        },
        { role: "tool", toolCallId: "call_1", content: "sunny, 21C" },
      ],
      tools: [
        {
          name: "get_weather",
          description: "d",
          parameters: { type: "object", properties: { city: { type: "string" } } },
        },
      ],
    });
    expect(res.text).toBe("It is sunny.");
    expect(server.requests[0]?.rawBody).toContain("sunny, 21C");
  });

  it("asks for JSON and returns the parsed, schema-checked value", async () => {
    const schema = {
      type: "object",
      properties: { label: { type: "string", enum: ["spam", "ham"] }, score: { type: "number" } },
      required: ["label", "score"],
    };
    server.enqueue(reply.json({ label: "spam", score: 0.9 }));
    const res = await serviceFor(c).chat({
      model: model(c),
      messages: [{ role: "user", content: "classify: WIN MONEY" }],
      json: { schema, name: "verdict" },
    });
    expect(res.json).toEqual({ label: "spam", score: 0.9 });
    expect(JSON.parse(res.text)).toEqual({ label: "spam", score: 0.9 });
    // Each provider was asked for JSON in its own dialect.
    const body = server.requests[0]?.body;
    if (c.kind === "openai-compatible" || c.kind === "ollama")
      expect(body.response_format).toEqual({ type: "json_object" });
    if (c.kind === "openai") expect(body.response_format?.type).toBe("json_schema");
    if (c.kind === "gemini") expect(body.generationConfig?.responseMimeType).toBe("application/json");
    // This Claude model has no native structured output, so the SDK forces its `json` tool.
    if (c.kind === "anthropic") {
      expect(body.tools.map((t: { name: string }) => t.name)).toEqual(["json"]);
      expect(body.tool_choice.type).toBe("any");
    }
  });
});

describe("request details", () => {
  it("maps Dify completion_params onto the wire and sends the API key", async () => {
    server.enqueue(reply.text("ok"));
    const llm = createLlmService({
      endpoints: {
        ep: {
          provider: "openai-compatible",
          baseURL: server.openaiBaseURL,
          apiKey: "sk-local",
          headers: { "x-team": "weft" },
        },
      },
      default: "ep",
    });
    await llm.chat({
      model: {
        provider: "openai",
        name: "m",
        completion_params: { temperature: 0.2, max_tokens: 64, top_p: "0.9", stop: ["END"] },
      },
      messages: [{ role: "user", content: "hi" }],
    });
    const req = server.requests[0];
    expect(req?.headers.authorization).toBe("Bearer sk-local");
    expect(req?.headers["x-team"]).toBe("weft");
    expect(req?.body).toMatchObject({ temperature: 0.2, max_tokens: 64, top_p: 0.9, stop: ["END"] });
  });

  it("rejects a non-numeric completion param with a typed error", async () => {
    const llm = createLlmService({
      endpoints: { ep: { provider: "openai-compatible", baseURL: server.openaiBaseURL } },
      default: "ep",
    });
    await expect(
      llm.chat({ model: { provider: "x", name: "m", completion_params: { temperature: "hot" } }, messages: [] }),
    ).rejects.toMatchObject({ code: "llm.bad_request", details: { param: "temperature" } });
    expect(server.requests).toHaveLength(0);
  });

  it("rejects malformed requests with a typed error naming the field", async () => {
    const llm = createLlmService({
      endpoints: { ep: { provider: "openai-compatible", baseURL: server.openaiBaseURL } },
      default: "ep",
    });
    const bad = [
      [{ messages: [] }, "model"],
      [{ model: { provider: "x", name: "m" }, messages: "hi" }, "messages"],
      [
        { model: { provider: "x", name: "m" }, messages: [], tools: [{ name: "t", description: "" }] },
        "tools[0].parameters",
      ],
      [{ model: { provider: "x", name: "m" }, messages: [{ role: "tool", content: "r" }] }, undefined],
    ] as const;
    for (const [req, field] of bad) {
      const err = await llm.chat(req as never).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: "llm.bad_request" });
      if (field) expect(err).toMatchObject({ details: { field } });
    }
    expect(server.requests).toHaveLength(0);
  });

  it("returns reasoning content when the server sends it", async () => {
    server.enqueue(reply.text("42", { reasoning: "6 times 7" }));
    const llm = createLlmService({
      endpoints: { ep: { provider: "openai-compatible", baseURL: server.openaiBaseURL } },
      default: "ep",
    });
    const res = await llm.chat({ model: { provider: "x", name: "m" }, messages: [{ role: "user", content: "?" }] });
    expect(res.text).toBe("42");
    expect(res.reasoning).toBe("6 times 7");
  });

  it("embeds texts through an OpenAI-compatible endpoint", async () => {
    server.enqueue(
      reply.embedding([
        [0.1, 0.2],
        [0.3, 0.4],
      ]),
    );
    const llm = createLlmService({
      endpoints: { ep: { provider: "openai-compatible", baseURL: server.openaiBaseURL, embeddingModel: "bge-m3" } },
      default: "ep",
    });
    const vectors = await llm.embed(["a", "b"]);
    expect(vectors).toEqual([
      [0.1, 0.2],
      [0.3, 0.4],
    ]);
    expect(server.requests[0]?.path).toBe("/v1/embeddings");
    expect(server.requests[0]?.body).toMatchObject({ model: "bge-m3", input: ["a", "b"] });
  });
});

describe("one service, several endpoints", () => {
  it("routes each Dify provider to its endpoint and counts usage per model", async () => {
    server.when((r) => r.api === "anthropic-messages", reply.text("from claude", { usage: { input: 5, output: 1 } }));
    server.when((r) => r.api === "openai-chat", reply.text("from local", { usage: { input: 2, output: 2 } }));
    const calls: string[] = [];
    const llm = createLlmService(
      {
        endpoints: {
          local: { provider: "openai-compatible", baseURL: server.openaiBaseURL, model: "qwen" },
          claude: { provider: "anthropic", baseURL: server.anthropicBaseURL, apiKey: "k" },
        },
        providers: { anthropic: "claude", "langgenius/openai_api_compatible/openai_api_compatible": "local" },
      },
      { onCall: (e) => calls.push(`${e.endpoint}/${e.model}:${e.usage.totalTokens}:${e.attempts}`) },
    );
    const a = await llm.chat({
      model: { provider: "langgenius/anthropic/anthropic", name: "claude-3-5-haiku-latest" },
      messages: [{ role: "user", content: "hi" }],
    });
    const b = await llm.chat({
      model: { provider: "langgenius/openai_api_compatible/openai_api_compatible", name: "gpt-4o" },
      messages: [{ role: "user", content: "hi" }],
    });
    expect([a.text, a.endpoint, b.text, b.endpoint, b.model]).toEqual([
      "from claude",
      "claude",
      "from local",
      "local",
      "qwen",
    ]);
    expect(calls).toEqual(["claude/claude-3-5-haiku-latest:6:1", "local/qwen:4:1"]);
    const usage = llm.usage();
    expect(usage).toMatchObject({ calls: 2, totalTokens: 10 });
    expect(usage.byModel["local/qwen"]).toEqual({ calls: 1, promptTokens: 2, completionTokens: 2, totalTokens: 4 });
  });

  it("sends image parts of a user message", async () => {
    server.enqueue(reply.text("a cat"));
    const llm = createLlmService({
      endpoints: { ep: { provider: "openai-compatible", baseURL: server.openaiBaseURL } },
      default: "ep",
    });
    await llm.chat({
      model: { provider: "x", name: "vl" },
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "what is this?" },
            { type: "file", data: new Uint8Array([137, 80, 78, 71]), mediaType: "image/png" },
          ],
        },
      ],
    });
    const content = server.requests[0]?.body.messages[0].content;
    expect(content[0]).toEqual({ type: "text", text: "what is this?" });
    expect(content[1].type).toBe("image_url");
    expect(content[1].image_url.url).toMatch(/^data:image\/png;base64,/);
  });

  it("embeds through Gemini's batchEmbedContents", async () => {
    server.enqueue(
      reply.embedding([
        [1, 0],
        [0, 1],
      ]),
    );
    const llm = createLlmService({
      endpoints: {
        g: { provider: "gemini", baseURL: server.geminiBaseURL, apiKey: "k", embeddingModel: "text-embedding-004" },
      },
      default: "g",
    });
    expect(await llm.embed(["x", "y"])).toEqual([
      [1, 0],
      [0, 1],
    ]);
    expect(server.requests[0]?.path).toBe("/v1beta/models/text-embedding-004:batchEmbedContents");
    expect(server.requests[0]?.headers["x-goog-api-key"]).toBe("k");
  });

  it("Anthropic embeddings are refused with a typed error", async () => {
    const llm = createLlmService({
      endpoints: { c: { provider: "anthropic", baseURL: server.anthropicBaseURL, apiKey: "k", embeddingModel: "x" } },
      default: "c",
    });
    await expect(llm.embed(["x"])).rejects.toMatchObject({ code: "llm.unsupported" });
  });
});
