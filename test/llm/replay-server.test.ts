import { describe, expect, it } from "vitest";
import { replayServerPerFile } from "../support/per-file.js";
import { reply } from "../support/replay-server.js";

const server = replayServerPerFile();

const post = (path: string, body: unknown) =>
  fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });

describe("replay server", () => {
  it("listens on 127.0.0.1 and answers the queue in order", async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    server.enqueue(reply.text("first"), reply.text("second"));
    const a = await (await post("/v1/chat/completions", { model: "m", messages: [] })).json();
    const b = await (await post("/v1/chat/completions", { model: "m", messages: [] })).json();
    expect(a.choices[0].message.content).toBe("first");
    expect(b.choices[0].message.content).toBe("second");
    expect(server.pending()).toBe(0);
  });

  it("tries predicate rules before the queue and records every request", async () => {
    server.enqueue(reply.text("queued"));
    server.when((r) => r.body?.messages?.[0]?.content === "special", reply.text("matched"), { times: 2 });
    const texts: string[] = [];
    for (const content of ["special", "plain", "special"]) {
      const res = await (
        await post("/v1/chat/completions", { model: "m", messages: [{ role: "user", content }] })
      ).json();
      texts.push(res.choices[0].message.content);
    }
    expect(texts).toEqual(["matched", "queued", "matched"]);
    expect(server.requests.map((r) => [r.index, r.api, r.model])).toEqual([
      [0, "openai-chat", "m"],
      [1, "openai-chat", "m"],
      [2, "openai-chat", "m"],
    ]);
    expect(server.requests[1]?.headers["content-type"]).toBe("application/json");
  });

  it("answers an unscripted request with 400 and lists it", async () => {
    const res = await post("/v1/messages", { model: "claude", messages: [] });
    expect(res.status).toBe(400);
    expect((await res.text()).includes("no scripted reply")).toBe(true);
    expect(server.unmatched).toHaveLength(1);
    expect(server.unmatched[0]?.api).toBe("anthropic-messages");
  });

  it("builds replies from the request when given a function", async () => {
    server.enqueue((req) => reply.text(`you said ${req.body.messages[0].content}`));
    const res = await (
      await post("/v1/chat/completions", { model: "m", messages: [{ role: "user", content: "ping" }] })
    ).json();
    expect(res.choices[0].message.content).toBe("you said ping");
  });

  it("scripts status codes with Retry-After and raw bodies", async () => {
    server.enqueue(reply.status(429, { retryAfter: 2 }), reply.raw("{broken", { status: 200 }));
    const limited = await post("/v1/chat/completions", {});
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("2");
    expect((await limited.json()).error.type).toBe("rate_limit_exceeded");
    const raw = await post("/v1/chat/completions", {});
    expect(await raw.text()).toBe("{broken");
  });

  it("streams OpenAI SSE with tool-call pieces, finish and usage, then [DONE]", async () => {
    server.enqueue(reply.toolCall("f", { a: 1 }, { usage: { input: 3, output: 4 } }));
    const res = await post("/v1/chat/completions", {
      model: "m",
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    const body = await res.text();
    const events = body
      .split("\n\n")
      .filter(Boolean)
      .map((e) => e.replace(/^data: /, ""));
    expect(events.at(-1)).toBe("[DONE]");
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e));
    const args = chunks.flatMap((c) =>
      c.choices.flatMap(
        (ch: { delta: { tool_calls?: Array<{ function: { arguments: string } }> } }) => ch.delta.tool_calls ?? [],
      ),
    );
    expect(args.map((t: { function: { arguments: string } }) => t.function.arguments).join("")).toBe('{"a":1}');
    expect(chunks.at(-1).usage).toEqual({ prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 });
    expect(chunks.at(-2).choices[0].finish_reason).toBe("tool_calls");
  });

  it("speaks Anthropic SSE event names and the Gemini stream path", async () => {
    server.enqueue(reply.text("hi there"), reply.text("gem"));
    const anth = await (await post("/v1/messages", { model: "c", stream: true })).text();
    expect(anth).toMatch(/^event: message_start\n/);
    expect(anth).toContain("event: content_block_delta");
    expect(anth.trim().endsWith('data: {"type":"message_stop"}')).toBe(true);
    const gem = await fetch(`${server.geminiBaseURL}/models/gemini-x:streamGenerateContent?alt=sse`, {
      method: "POST",
      body: "{}",
    });
    const text = await gem.text();
    expect(server.requests.at(-1)).toMatchObject({
      api: "gemini-generate",
      stream: true,
      model: "gemini-x",
      query: { alt: "sse" },
    });
    expect(text).toContain('"text":"gem"');
    expect(text).toContain('"finishReason":"STOP"');
  });

  it("delays a reply", async () => {
    server.enqueue(reply.text("late", { delayMs: 150 }));
    const t0 = Date.now();
    await post("/v1/chat/completions", {});
    expect(Date.now() - t0).toBeGreaterThanOrEqual(140);
  });
});
