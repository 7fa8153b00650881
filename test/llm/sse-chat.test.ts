// The thin streaming path (src/llm/sse-chat.ts) against the AI SDK path on the same wire: OpenAI-compatible
// endpoints and `openai` endpoints (for the models its SDK sends the plain request) take the thin path, and
// `thinStreaming: false` sends the same call through the SDK, against the same servers.
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { isDeepStrictEqual as isEqual } from "node:util";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { ProviderKind } from "../../src/llm/index.js";
import { createLlmService, LlmError } from "../../src/llm/index.js";
import { openaiSendsPlainChat } from "../../src/llm/sse-chat.js";
import { type ReplayServer, reply, startReplayServer } from "../support/replay-server.js";

let replay: ReplayServer;
beforeAll(async () => {
  replay = await startReplayServer();
});
afterAll(() => replay.close());
beforeEach(() => replay.reset());

const noWait = async () => {};
function service(kind: ProviderKind, baseURL: string, maxRetries = 0, thinStreaming = true, model = "m") {
  return createLlmService(
    { endpoints: { ep: { provider: kind, baseURL, apiKey: "k", model } }, default: "ep", retry: { maxRetries } },
    { sleep: noWait, thinStreaming },
  );
}
/** The paths compared: the thin path for each provider it covers, and the SDK's (OpenAI's chat model). */
const PATHS = {
  thin: ["openai-compatible", true],
  openaiThin: ["openai", true],
  sdk: ["openai", false],
} as const;
const ask = (onText: (d: string) => void, extra: Record<string, unknown> = {}) => ({
  model: { provider: "openai", name: "m", completion_params: { temperature: 0.2, max_tokens: 50, stop: ["END"] } },
  messages: [
    { role: "system" as const, content: "Be brief." },
    { role: "user" as const, content: "Capital of France?" },
    { role: "assistant" as const, content: "Which France?" },
    {
      role: "user" as const,
      content: [
        { type: "text" as const, text: "The " },
        { type: "text" as const, text: "country." },
      ],
    },
  ],
  onText,
  ...extra,
});

type PathResult = { res: unknown; deltas: string[]; body: Record<string, unknown> };
/** The call through every path: what came back, the deltas, and the request each sent. */
async function bothPaths(script: () => void): Promise<Record<keyof typeof PATHS, PathResult>> {
  const out: Partial<Record<keyof typeof PATHS, PathResult>> = {};
  for (const [name, [kind, thin]] of Object.entries(PATHS) as Array<
    [keyof typeof PATHS, readonly [ProviderKind, boolean]]
  >) {
    script();
    const deltas: string[] = [];
    const {
      endpoint: _e,
      model: _m,
      ...res
    } = await service(kind, replay.openaiBaseURL, 0, thin).chat(ask((d) => deltas.push(d)));
    out[name] = { res, deltas, body: replay.last()!.body };
  }
  return out as Record<keyof typeof PATHS, PathResult>;
}

describe("the thin streaming path answers as the SDK path does", () => {
  it("text, usage, finish reason and deltas", async () => {
    const { thin, openaiThin, sdk } = await bothPaths(() =>
      replay.enqueue(reply.text("Paris is the capital, for a long time.", { usage: { input: 21, output: 9 } })),
    );
    expect(thin.res).toEqual(sdk.res);
    expect(openaiThin.res).toEqual(sdk.res);
    expect(openaiThin.deltas).toEqual(sdk.deltas);
    expect(thin.res).toMatchObject({ text: "Paris is the capital, for a long time.", finishReason: "stop" });
    expect(thin.res).toMatchObject({ usage: { promptTokens: 21, completionTokens: 9, totalTokens: 30 } });
    expect(thin.deltas.length).toBeGreaterThan(3);
    expect(thin.deltas).toEqual(sdk.deltas);
  });

  it("reasoning apart from the text, and a length stop", async () => {
    const { thin, openaiThin, sdk } = await bothPaths(() =>
      replay.enqueue(reply.text("42", { reasoning: "six times seven", finishReason: "length" })),
    );
    expect(openaiThin.res).toEqual(sdk.res);
    expect(thin.res).toMatchObject({ text: "42", reasoning: "six times seven", finishReason: "length" });
    // OpenAI's own chat API sends no reasoning text, so its SDK model does not read it; the rest is the same.
    const { reasoning: _r, ...rest } = thin.res as { reasoning?: string };
    expect(rest).toEqual(sdk.res);
  });

  it("sends the same messages and settings", async () => {
    const { thin, openaiThin, sdk } = await bothPaths(() => replay.enqueue(reply.text("ok")));
    for (const key of ["messages", "temperature", "stop", "stream", "stream_options"]) {
      expect([key, thin.body[key]]).toEqual([key, sdk.body[key]]);
    }
    // OpenAI's own request, every field of it.
    expect(openaiThin.body).toEqual(sdk.body);
    expect(thin.body.max_tokens).toBe(50);
    expect(thin.body.messages).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: "Capital of France?" },
      { role: "assistant", content: "Which France?" },
      {
        role: "user",
        content: [
          { type: "text", text: "The " },
          { type: "text", text: "country." },
        ],
      },
    ]);
  });

  it.each([
    ["401", () => replay.enqueue(reply.status(401, { message: "bad key" })), "llm.auth"],
    ["400", () => replay.enqueue(reply.status(400, { message: "no such model" })), "llm.bad_request"],
    ["a cut after text", () => replay.enqueue(reply.text("a b c d", { dropAfterChunks: 2 })), "llm.connection"],
  ])("the same typed error for %s", async (_name, script, code) => {
    const errors: Record<string, LlmError> = {};
    for (const [name, [kind, thin]] of Object.entries(PATHS)) {
      script();
      errors[name] = (await service(kind, replay.openaiBaseURL, 0, thin)
        .chat(ask(() => {}))
        .catch((e: unknown) => e)) as LlmError;
    }
    for (const thin of [errors.thin!, errors.openaiThin!]) {
      expect(thin).toBeInstanceOf(LlmError);
      expect(thin.code).toBe(code);
      expect(thin.code).toBe(errors.sdk!.code);
      expect(thin.retryable).toBe(errors.sdk!.retryable);
      expect(thin.details).toMatchObject({ endpoint: "ep", model: "m", attempts: 1 });
    }
  });

  it("a 429 is retried after its Retry-After, then answers", async () => {
    replay.enqueue(reply.status(429, { retryAfter: 1 }), reply.text("later"));
    const delays: number[] = [];
    const llm = createLlmService(
      {
        endpoints: { ep: { provider: "openai-compatible", baseURL: replay.openaiBaseURL, apiKey: "k" } },
        default: "ep",
        retry: { maxRetries: 1 },
      },
      { sleep: async (ms) => void delays.push(ms) },
    );
    expect((await llm.chat(ask(() => {}))).text).toBe("later");
    expect(delays).toEqual([1000]);
  });
});

describe("OpenAI endpoints on the thin path", () => {
  // Model ids of each kind OpenAI's SDK tells apart: plain chat models, reasoning models, search previews.
  it.each([
    ["gpt-4o-mini", true],
    ["gpt-4.1", true],
    ["gpt-3.5-turbo", true],
    ["gpt-5-chat-latest", true],
    ["my-proxy-model", true],
    ["gpt-4o-search-preview", false],
    ["o3-mini", false],
    ["gpt-5", false],
    ["gpt-5.1-chat", false],
  ])("%s: the thin path is taken exactly when it sends the SDK's own request", async (model, plain) => {
    const bodies: Record<string, unknown>[] = [];
    for (const thin of [true, false]) {
      replay.enqueue(reply.text("ok"));
      await service("openai", replay.openaiBaseURL, 0, thin, model).chat(ask(() => {}));
      bodies.push(replay.last()!.body);
    }
    const [viaThin, viaSdk] = bodies;
    // Taken: the same request; left to the SDK: the SDK's request either way, and not the plain one.
    expect(viaThin).toEqual(viaSdk);
    const plainBody = { ...viaSdk, model };
    replay.enqueue(reply.text("ok"));
    await service("openai-compatible", replay.openaiBaseURL, 0, true, model).chat(ask(() => {}));
    const compatible = replay.last()!.body;
    expect([model, isEqual(compatible, plainBody)]).toEqual([model, plain]);
    expect(openaiSendsPlainChat(model)).toBe(plain);
  });

  it("a refusal is streamed as text and its stop reported as content_filter, as the SDK does", async () => {
    const sse = [
      event({ role: "assistant", refusal: "I can't " }),
      event({ refusal: "help with that." }),
      `data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }] })}\n\n`,
      "data: [DONE]\n\n",
    ].join("");
    const out: unknown[] = [];
    for (const thin of [true, false]) {
      const server = await rawServer([Buffer.from(sse)]);
      try {
        const deltas: string[] = [];
        const {
          endpoint: _e,
          model: _m,
          ...res
        } = await service("openai", server.baseURL, 0, thin).chat(ask((d) => deltas.push(d)));
        out.push({ res, deltas });
      } finally {
        await server.close();
      }
    }
    expect(out[0]).toEqual(out[1]);
    expect(out[0]).toMatchObject({ res: { text: "I can't help with that.", finishReason: "content_filter" } });
  });

  it("an error event after text fails both paths with the same code, unretried", async () => {
    const sse = `${event({ content: "partial " })}data: ${JSON.stringify({ error: { message: "model overloaded" } })}\n\n`;
    const errors: LlmError[] = [];
    for (const thin of [true, false]) {
      const server = await rawServer([Buffer.from(sse)]);
      try {
        errors.push(
          (await service("openai", server.baseURL, 2, thin)
            .chat(ask(() => {}))
            .catch((e: unknown) => e)) as LlmError,
        );
      } finally {
        await server.close();
      }
    }
    expect(errors[0]).toBeInstanceOf(LlmError);
    expect([errors[0]?.code, errors[0]?.retryable]).toEqual([errors[1]?.code, errors[1]?.retryable]);
    expect(errors[0]?.message).toMatch(/model overloaded/);
  });
});

/** A server writing the given raw bytes in the given pieces, each flushed before the next. */
async function rawServer(pieces: Buffer[], opts: { status?: number; hold?: boolean } = {}) {
  const held: ServerResponse[] = [];
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on("end", async () => {
      res.writeHead(opts.status ?? 200, { "content-type": "text/event-stream" });
      for (const p of pieces) await new Promise<void>((ok) => res.write(p, () => ok()));
      if (opts.hold) held.push(res);
      else res.end();
    });
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const port = (server.address() as AddressInfo).port;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    close: () => {
      for (const r of held) r.destroy();
      server.closeAllConnections();
      return new Promise<void>((ok) => server.close(() => ok()));
    },
  };
}

const event = (delta: unknown, extra: Record<string, unknown> = {}) =>
  `data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: null }], ...extra })}\r\n\r\n`;

describe("the thin path reads any chunking of the stream", () => {
  it("events split inside lines, inside multi-byte characters, with CRLF, comments and [DONE]", async () => {
    const sse = Buffer.from(
      [
        ": keep-alive\r\n\r\n",
        event({ role: "assistant", content: "Café " }),
        event({ content: "日本 " }),
        event({ content: "🙂." }),
        `data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }] })}\r\n\r\n`,
        `data: ${JSON.stringify({ choices: [], usage: { prompt_tokens: 7, completion_tokens: 4 } })}\r\n\r\n`,
        "data: [DONE]\r\n\r\n",
      ].join(""),
    );
    // Every split of 1 to 7 bytes: lines, CRLF pairs and UTF-8 sequences all get cut somewhere.
    for (const size of [1, 2, 3, 5, 7]) {
      const pieces: Buffer[] = [];
      for (let i = 0; i < sse.length; i += size) pieces.push(sse.subarray(i, i + size));
      const server = await rawServer(pieces);
      try {
        const deltas: string[] = [];
        const res = await service("openai-compatible", server.baseURL).chat(ask((d) => deltas.push(d)));
        expect(res.text).toBe("Café 日本 🙂.");
        expect(deltas).toEqual(["Café ", "日本 ", "🙂."]);
        expect(res.usage).toEqual({ promptTokens: 7, completionTokens: 4, totalTokens: 11 });
        expect(res.finishReason).toBe("stop");
      } finally {
        await server.close();
      }
    }
  });

  it("a stream without a usage chunk reports zero tokens, not a guess", async () => {
    const server = await rawServer([Buffer.from(`${event({ content: "hi" })}data: [DONE]\n\n`)]);
    try {
      const res = await service("openai-compatible", server.baseURL).chat(ask(() => {}));
      expect(res).toMatchObject({ text: "hi", usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 } });
      expect(res.finishReason).toBe("other");
    } finally {
      await server.close();
    }
  });
});

describe("the thin path's failures are typed", () => {
  it.each([
    ["an event that is not JSON", "data: {broken\n\n", "llm.bad_response", /not JSON/],
    [
      "an error event",
      `data: ${JSON.stringify({ error: { message: "model overloaded" } })}\n\n`,
      "llm.call_failed",
      /model overloaded/,
    ],
  ])("%s mid-stream, after text, is not retried", async (_name, bad, code, message) => {
    const server = await rawServer([Buffer.from(event({ content: "partial " })), Buffer.from(bad)]);
    try {
      const deltas: string[] = [];
      const err = await service("openai-compatible", server.baseURL, 2)
        .chat(ask((d) => deltas.push(d)))
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(LlmError);
      expect(err).toMatchObject({ code, retryable: false, details: { endpoint: "ep", attempts: 1 } });
      expect((err as Error).message).toMatch(message);
      expect(deltas).toEqual(["partial "]);
    } finally {
      await server.close();
    }
  });

  it("an abort while the stream is open ends the call at once with llm.aborted", async () => {
    // The server sends one event and then holds the connection open: only the abort can end the call.
    const server = await rawServer([Buffer.from(event({ content: "first" }))], { hold: true });
    try {
      const ac = new AbortController();
      const err = await service("openai-compatible", server.baseURL)
        .chat(ask(() => ac.abort(), { signal: ac.signal }))
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(LlmError);
      expect(err).toMatchObject({ code: "llm.aborted" });
    } finally {
      await server.close();
    }
  });

  it("a connection refused is llm.connection and retryable", async () => {
    const server = await rawServer([]);
    const { baseURL } = server;
    await server.close();
    const err = await service("openai-compatible", baseURL)
      .chat(ask(() => {}))
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "llm.connection", retryable: true });
  });
});
