import { describe, expect, it } from "vitest";
import { createLlmService, LlmError } from "../../src/llm/index.js";
import { parseModelJson, validateJsonSchema } from "../../src/llm/json.js";
import { replayServerPerFile } from "../support/per-file.js";
import { reply } from "../support/replay-server.js";

const server = replayServerPerFile();

const schema = {
  type: "object",
  properties: {
    class_name: { type: "string", enum: ["billing", "tech"] },
    confidence: { type: "number" },
  },
  required: ["class_name"],
};

function service(kind: "openai-compatible" | "anthropic" = "openai-compatible", structuredOutput?: "json" | "tool") {
  return createLlmService({
    endpoints: {
      ep: {
        provider: kind,
        baseURL: kind === "anthropic" ? server.anthropicBaseURL : server.openaiBaseURL,
        apiKey: "k",
        structuredOutput,
      },
    },
    default: "ep",
    retry: { maxRetries: 0 },
  });
}

const ask = {
  model: { provider: "openai", name: "m" },
  messages: [{ role: "user" as const, content: "My invoice is wrong" }],
  json: { schema },
};

describe("JSON answers", () => {
  it("repairs slightly malformed JSON locally, without a second call", async () => {
    server.enqueue(reply.jsonText("```json\n{class_name: 'billing', confidence: 0.8,}\n```"));
    const res = await service().chat(ask);
    expect(res.json).toEqual({ class_name: "billing", confidence: 0.8 });
    expect(res.text).toBe('{"class_name":"billing","confidence":0.8}');
    expect(server.requests).toHaveLength(1);
  });

  it("sends the validation error back once and accepts the corrected answer", async () => {
    server.enqueue(
      reply.json({ class_name: "refund", confidence: "high" }),
      reply.json({ class_name: "billing", confidence: 0.7 }),
    );
    const llm = service();
    const res = await llm.chat(ask);
    expect(res.json).toEqual({ class_name: "billing", confidence: 0.7 });
    expect(server.requests).toHaveLength(2);
    const repair = server.requests[1]?.body.messages as Array<{ role: string; content: string }>;
    expect(repair.at(-2)).toMatchObject({ role: "assistant", content: '{"class_name":"refund","confidence":"high"}' });
    expect(repair.at(-1)?.role).toBe("user");
    expect(repair.at(-1)?.content).toContain("$.class_name");
    expect(repair.at(-1)?.content).toContain("$.confidence");
    // Usage covers both calls.
    expect(res.usage.totalTokens).toBe(30);
    expect(llm.usage().calls).toBe(2);
  });

  it("repairs an answer that is not JSON at all", async () => {
    server.enqueue(reply.text("I think it's billing."), reply.json({ class_name: "billing" }));
    const res = await service().chat(ask);
    expect(res.json).toEqual({ class_name: "billing" });
    expect(server.requests[1]?.rawBody).toContain("contains no JSON value");
  });

  it("fails with llm.structured_output_invalid after one failed repair", async () => {
    server.enqueue(reply.json({ class_name: 5 }), reply.json({ confidence: 1 }), reply.json({ class_name: "billing" }));
    const err = await service()
      .chat(ask)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LlmError);
    expect(err).toMatchObject({
      code: "llm.structured_output_invalid",
      details: { endpoint: "ep", text: '{"confidence":1}' },
    });
    expect((err as LlmError).details.errors).toEqual([expect.stringContaining("$.class_name")]);
    expect(server.requests).toHaveLength(2);
    expect(server.pending()).toBe(1);
  });

  it("puts the schema in the prompt when the endpoint's JSON mode cannot carry it", async () => {
    server.enqueue(reply.json({ class_name: "tech" }));
    await service().chat({ ...ask, messages: [{ role: "system", content: "You classify tickets." }, ...ask.messages] });
    const body = server.requests[0]?.body;
    expect(body.response_format).toEqual({ type: "json_object" });
    expect(body.messages).toHaveLength(2);
    expect(body.messages[0].role).toBe("system");
    expect(body.messages[0].content).toMatch(
      /^You classify tickets\.\n\nRespond with only a JSON value that matches this JSON Schema/,
    );
    expect(body.messages[0].content).toContain('"enum":["billing","tech"]');
  });

  it("sends the schema on the wire instead when the server supports structured outputs", async () => {
    server.enqueue(reply.json({ class_name: "tech" }));
    const llm = createLlmService({
      endpoints: {
        ep: { provider: "openai-compatible", baseURL: server.openaiBaseURL, supportsStructuredOutputs: true },
      },
      default: "ep",
    });
    await llm.chat({ ...ask, json: { schema, name: "ticket" } });
    const body = server.requests[0]?.body;
    expect(body.response_format).toMatchObject({ type: "json_schema", json_schema: { name: "ticket", schema } });
    expect(body.messages).toEqual([{ role: "user", content: "My invoice is wrong" }]);
  });

  it("accepts any JSON when no schema is given", async () => {
    server.enqueue(reply.json([1, 2, 3]));
    const res = await service().chat({ ...ask, json: {} });
    expect(res.json).toEqual([1, 2, 3]);
  });

  it("streams a JSON answer and still validates it", async () => {
    server.enqueue(reply.json({ class_name: "tech" }));
    const deltas: string[] = [];
    const res = await service().chat({ ...ask, onText: (d) => deltas.push(d) });
    expect(deltas.join("")).toBe('{"class_name":"tech"}');
    expect(res.json).toEqual({ class_name: "tech" });
  });

  it("function-calling mode forces a tool whose arguments are the answer", async () => {
    server.enqueue(reply.toolCall("respond_json", { class_name: "tech", confidence: 0.5 }));
    const res = await service("openai-compatible", "tool").chat(ask);
    expect(res.json).toEqual({ class_name: "tech", confidence: 0.5 });
    expect(res.toolCalls).toEqual([]);
    expect(res.finishReason).toBe("stop");
    const body = server.requests[0]?.body;
    expect(body.tool_choice).toEqual({ type: "function", function: { name: "respond_json" } });
    expect(body.tools[0].function.parameters).toMatchObject({ required: ["class_name"] });
    expect(body.response_format).toBeUndefined();
  });

  it("function-calling mode repairs through a tool result", async () => {
    server.enqueue(
      reply.toolCall("respond_json", { class_name: "sales" }, { id: "call_x" }),
      reply.toolCall("respond_json", { class_name: "billing" }),
    );
    const res = await service("openai-compatible", "tool").chat(ask);
    expect(res.json).toEqual({ class_name: "billing" });
    const msgs = server.requests[1]?.body.messages as Array<Record<string, unknown>>;
    expect(msgs.at(-1)).toMatchObject({ role: "tool", tool_call_id: "call_x" });
    expect(String(msgs.at(-1)?.content)).toContain("Invalid option");
  });

  it("repairs malformed tool-call arguments with jsonrepair", async () => {
    server.enqueue(reply.toolCall("lookup", "{'q': 'weft',}"));
    const res = await service().chat({
      model: ask.model,
      messages: ask.messages,
      tools: [
        { name: "lookup", description: "d", parameters: { type: "object", properties: { q: { type: "string" } } } },
      ],
    });
    expect(res.toolCalls[0]?.arguments).toEqual({ q: "weft" });
  });

  it("Anthropic JSON via the SDK's json tool, with a repair turn", async () => {
    server.enqueue(reply.json({ class_name: "nope" }), reply.json({ class_name: "tech" }));
    const res = await service("anthropic").chat({
      ...ask,
      model: { provider: "anthropic", name: "claude-3-5-haiku-latest" },
    });
    expect(res.json).toEqual({ class_name: "tech" });
    expect(server.requests[0]?.body.tools).toEqual([expect.objectContaining({ name: "json" })]);
    // The SDK hands the json tool's input back as text, so the repair turn is a plain assistant/user pair.
    const msgs = server.requests[1]?.body.messages as Array<{ role: string }>;
    expect(msgs.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(server.requests[1]?.rawBody).toContain("Your answer was not valid");
  });
});

describe("parseModelJson / validateJsonSchema", () => {
  it("strips prose and fences, repairs, and reports what is wrong", () => {
    expect(parseModelJson('Sure! Here it is: {"a": 1}')).toEqual({ ok: true, value: { a: 1 }, repaired: false });
    expect(parseModelJson("{'a': [1, 2,]}")).toMatchObject({ ok: true, value: { a: [1, 2] }, repaired: true });
    expect(parseModelJson("no json here")).toMatchObject({ ok: false });
  });

  it("validates type, required, enum and nested items with paths", () => {
    const s = {
      type: "object",
      properties: { tags: { type: "array", items: { type: "string" } } },
      required: ["tags"],
    };
    expect(validateJsonSchema({ tags: ["a"] }, s)).toMatchObject({ ok: true });
    const bad = validateJsonSchema({ tags: ["a", 2] }, s);
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.errors[0]).toMatch(/^\$\.tags\.1:/);
    expect(validateJsonSchema({}, s)).toMatchObject({ ok: false });
  });
});
