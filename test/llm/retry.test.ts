import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLlmService, LlmError, type RetryEvent } from "../../src/llm/index.js";
import { retryDelay } from "../../src/llm/retry.js";
import { replayServerPerFile } from "../support/per-file.js";
import { reply } from "../support/replay-server.js";

const server = replayServerPerFile();

const ask = { model: { provider: "openai", name: "m" }, messages: [{ role: "user" as const, content: "hi" }] };

function service(
  opts: { maxRetries?: number; timeoutMs?: number; kind?: "openai-compatible" | "anthropic" | "gemini" } = {},
) {
  const retries: RetryEvent[] = [];
  const kind = opts.kind ?? "openai-compatible";
  const baseURL = kind === "gemini" ? server.geminiBaseURL : server.openaiBaseURL;
  const llm = createLlmService(
    {
      endpoints: { ep: { provider: kind, baseURL, apiKey: "k", timeoutMs: opts.timeoutMs } },
      default: "ep",
      retry: { maxRetries: opts.maxRetries ?? 3, baseDelayMs: 5, maxDelayMs: 20, maxRetryAfterMs: 5_000 },
    },
    { onRetry: (e) => retries.push(e) },
  );
  return { llm, retries };
}

describe("retries", () => {
  it("429 with Retry-After waits as told, then succeeds", async () => {
    server.enqueue(reply.status(429, { retryAfter: 1 }), reply.text("after the wait"));
    const { llm, retries } = service();
    const started = Date.now();
    const res = await llm.chat(ask);
    expect(res.text).toBe("after the wait");
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(retries).toHaveLength(1);
    expect(retries[0]?.delayMs).toBe(1000);
    expect(retries[0]?.error.code).toBe("llm.rate_limited");
    expect(server.requests).toHaveLength(2);
  });

  it("honours retry-after-ms too", async () => {
    server.enqueue(reply.status(429, { headers: { "retry-after-ms": "30" } }), reply.text("ok"));
    const { llm, retries } = service();
    await llm.chat(ask);
    expect(retries[0]?.delayMs).toBe(30);
  });

  it("gives up at once when Retry-After exceeds the bound", async () => {
    server.enqueue(reply.status(429, { retryAfter: 3600 }), reply.text("never"));
    const { llm, retries } = service();
    const err = await llm.chat(ask).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LlmError);
    expect(err).toMatchObject({
      code: "llm.rate_limited",
      details: { status: 429, retryAfterMs: 3_600_000, attempts: 1 },
    });
    expect(retries).toHaveLength(0);
    expect(server.pending()).toBe(1);
  });

  it("500 twice, then success, with growing backoff", async () => {
    server.enqueue(
      reply.status(500),
      reply.status(503),
      reply.text("third time lucky", { usage: { input: 7, output: 2 } }),
    );
    const { llm, retries } = service();
    const res = await llm.chat(ask);
    expect(res.text).toBe("third time lucky");
    expect(retries.map((r) => r.error.code)).toEqual(["llm.server_error", "llm.server_error"]);
    expect(retries.map((r) => r.attempt)).toEqual([1, 2]);
    // Only the successful attempt's tokens are recorded.
    expect(llm.usage()).toMatchObject({ calls: 1, totalTokens: 9 });
  });

  it("retries a timeout, then succeeds", async () => {
    server.enqueue(reply.text("too slow", { delayMs: 1_000 }), reply.text("quick"));
    const { llm, retries } = service({ timeoutMs: 200 });
    const res = await llm.chat(ask);
    expect(res.text).toBe("quick");
    expect(retries[0]?.error).toMatchObject({ code: "llm.timeout", details: { timeoutMs: 200 } });
  });

  it("retries a streaming timeout before any text arrived", async () => {
    server.enqueue(reply.text("too slow", { delayMs: 1_000 }), reply.text("streamed fine"));
    const { llm, retries } = service({ timeoutMs: 200 });
    const deltas: string[] = [];
    const res = await llm.chat({ ...ask, onText: (d) => deltas.push(d) });
    expect(res.text).toBe("streamed fine");
    expect(deltas.join("")).toBe("streamed fine");
    expect(retries[0]?.error.code).toBe("llm.timeout");
  });

  it("bounds silence, not length, when streaming", async () => {
    // Twelve chunks 60 ms apart take longer than the 250 ms timeout, but no gap does.
    server.enqueue(reply.text("a b c d e f g h i j k l", { chunkDelayMs: 60 }));
    const { llm, retries } = service({ timeoutMs: 250 });
    const res = await llm.chat({ ...ask, onText: () => {} });
    expect(res.text).toBe("a b c d e f g h i j k l");
    expect(retries).toHaveLength(0);
  });

  it("does not retry a stream that stalls after emitting text", async () => {
    server.enqueue(reply.text("a b c", { chunkDelayMs: 600 }), reply.text("second"));
    const { llm } = service({ timeoutMs: 250 });
    const deltas: string[] = [];
    const err = await llm.chat({ ...ask, onText: (d) => deltas.push(d) }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "llm.timeout", retryable: false, details: { attempts: 1 } });
    expect(deltas.length).toBeGreaterThan(0);
    expect(server.requests).toHaveLength(1);
  });

  it("a stream cut before any text is retried; one cut after text fails as llm.connection", async () => {
    server.enqueue(reply.text("x y z", { dropAfterChunks: 0 }), reply.text("whole"));
    const { llm, retries } = service();
    expect((await llm.chat({ ...ask, onText: () => {} })).text).toBe("whole");
    expect(retries[0]?.error.code).toBe("llm.connection");

    server.enqueue(reply.text("x y z", { dropAfterChunks: 2 }), reply.text("never"));
    const deltas: string[] = [];
    const err = await llm.chat({ ...ask, onText: (d) => deltas.push(d) }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "llm.connection", retryable: false });
    expect(deltas.join("")).toBe("x y ");
    expect(server.pending()).toBe(1);
  });

  it("persistent 503 ends in a typed error naming endpoint, status and attempts", async () => {
    server.when(() => true, reply.status(503, { message: "overloaded" }), { times: Number.POSITIVE_INFINITY });
    const { llm, retries } = service({ maxRetries: 2 });
    const err = await llm.chat(ask).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LlmError);
    expect(err).toMatchObject({
      code: "llm.server_error",
      details: { endpoint: "ep", model: "m", status: 503, attempts: 3 },
    });
    expect((err as Error).message).toContain("HTTP 503");
    expect(retries).toHaveLength(2);
    expect(server.requests).toHaveLength(3);
  });

  it("does not retry 400 or 401", async () => {
    server.enqueue(reply.status(400, { message: "bad field" }));
    const { llm } = service();
    await expect(llm.chat(ask)).rejects.toMatchObject({
      code: "llm.bad_request",
      details: { status: 400, attempts: 1 },
    });
    server.enqueue(reply.status(401));
    await expect(llm.chat(ask)).rejects.toMatchObject({ code: "llm.auth", details: { attempts: 1 } });
    expect(server.requests).toHaveLength(2);
  });

  it("retries a malformed response body, then fails cleanly if it persists", async () => {
    server.enqueue(reply.raw('{"id": "x", "choices": ['), reply.text("readable"));
    const { llm, retries } = service();
    expect((await llm.chat(ask)).text).toBe("readable");
    expect(retries[0]?.error.code).toBe("llm.bad_response");

    server.when(() => true, reply.raw("<html>gateway</html>", { contentType: "text/html" }), {
      times: Number.POSITIVE_INFINITY,
    });
    const err = await service({ maxRetries: 1 })
      .llm.chat(ask)
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "llm.bad_response", details: { attempts: 2 } });
  });

  it("retries the Gemini format too (429 then text)", async () => {
    server.enqueue(reply.status(429, { retryAfter: 0 }), reply.text("gemini ok"));
    const { llm, retries } = service({ kind: "gemini" });
    expect((await llm.chat({ ...ask, model: { provider: "google", name: "gemini-2.0-flash" } })).text).toBe(
      "gemini ok",
    );
    expect(retries).toHaveLength(1);
  });

  it("stops when the caller aborts, without retrying", async () => {
    server.enqueue(reply.text("slow", { delayMs: 2_000 }));
    const { llm, retries } = service();
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 100);
    await expect(llm.chat({ ...ask, signal: ac.signal })).rejects.toMatchObject({ code: "llm.aborted" });
    expect(retries).toHaveLength(0);
  });
});

describe("connection failures", () => {
  let resetServer: Server;
  let resets = 0;
  let port = 0;
  beforeAll(async () => {
    // Drops the first two connections mid-request, then answers like an OpenAI server.
    resetServer = createServer((req, res) => {
      resets += 1;
      if (resets <= 2) {
        req.socket.destroy();
        return;
      }
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          id: "c",
          object: "chat.completion",
          created: 0,
          model: "m",
          choices: [{ index: 0, message: { role: "assistant", content: "survived" }, finish_reason: "stop" }],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        }),
      );
    });
    await new Promise<void>((ok) => resetServer.listen(0, "127.0.0.1", ok));
    port = (resetServer.address() as AddressInfo).port;
  });
  afterAll(async () => {
    resetServer.closeAllConnections();
    await new Promise<void>((ok) => resetServer.close(() => ok()));
  });

  it("retries connection resets", async () => {
    const retries: RetryEvent[] = [];
    const llm = createLlmService(
      {
        endpoints: { ep: { provider: "openai-compatible", baseURL: `http://127.0.0.1:${port}/v1` } },
        default: "ep",
        retry: { baseDelayMs: 5, maxDelayMs: 10 },
      },
      { onRetry: (e) => retries.push(e) },
    );
    expect((await llm.chat(ask)).text).toBe("survived");
    expect(retries.map((r) => r.error.code)).toEqual(["llm.connection", "llm.connection"]);
  });

  it("a refused connection ends in llm.connection after the retry budget", async () => {
    const closed = createServer();
    await new Promise<void>((ok) => closed.listen(0, "127.0.0.1", ok));
    const deadPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((ok) => closed.close(() => ok()));
    const llm = createLlmService({
      endpoints: { ep: { provider: "openai-compatible", baseURL: `http://127.0.0.1:${deadPort}/v1` } },
      default: "ep",
      retry: { maxRetries: 1, baseDelayMs: 1, maxDelayMs: 1 },
    });
    await expect(llm.chat(ask)).rejects.toMatchObject({ code: "llm.connection", details: { attempts: 2 } });
  });
});

describe("backoff schedule", () => {
  const policy = { maxRetries: 5, baseDelayMs: 100, maxDelayMs: 1_000, maxRetryAfterMs: 10_000 };
  const err = new LlmError("llm.server_error", "x", {}, true);
  it("doubles per attempt within [half, full] of the exponential step and is capped", () => {
    expect(retryDelay(err, 1, policy, () => 0)).toBe(50);
    expect(retryDelay(err, 1, policy, () => 1)).toBe(100);
    expect(retryDelay(err, 3, policy, () => 0.5)).toBe(300);
    expect(retryDelay(err, 10, policy, () => 1)).toBe(1_000);
    expect(retryDelay(err, 10, policy, () => 0)).toBe(500);
  });
});
