/**
 * A scripted LLM HTTP server for tests: it listens on 127.0.0.1 (ephemeral port), answers each request
 * with the next scripted reply, and records every request so tests can assert what a client sent.
 *
 * It speaks enough of three wire formats for the AI SDK clients (and any other HTTP client):
 * - OpenAI chat completions  `POST …/chat/completions` (JSON and SSE with `stream: true`, tool calls,
 *   usage chunk) and embeddings `POST …/embeddings`. Works for OpenAI, vLLM, Ollama /v1, llama.cpp, LM Studio.
 * - Anthropic messages       `POST …/messages` (JSON and SSE, tool_use, thinking, usage).
 * - Gemini generateContent   `POST …/models/{model}:generateContent`, `:streamGenerateContent?alt=sse`,
 *   `:batchEmbedContents`.
 * The format is chosen from the request path, so one server can serve every provider at once.
 *
 * Usage:
 * ```ts
 * const server = await startReplayServer();
 * server.enqueue(reply.status(429, { retryAfter: 1 }), reply.text("hello"));   // answered in order
 * server.when((r) => r.api === "openai-embeddings", reply.embedding([[0, 1]]), { times: Infinity });
 * // point a client at server.openaiBaseURL / server.anthropicBaseURL / server.geminiBaseURL
 * expect(server.requests[1]?.body.messages).toEqual([...]);   // or server.last()
 * await server.close();
 * ```
 * Failure scripts: `reply.status(429, { retryAfter: 1 })`, `reply.status(500)`, `{ delayMs }` (longer than the
 * client's timeout), `{ chunkDelayMs }` (a slow or stalled stream), `{ dropAfterChunks }` (connection cut
 * mid-stream), `reply.raw("{broken")` (a malformed body), `reply.jsonText("{a: 1,}")` (malformed model JSON).
 *
 * Matching: `when` rules are tried first (in the order added, while they have uses left); otherwise the
 * next `enqueue`d reply is used. A request nothing answers gets HTTP 400 (not retryable, so a client fails
 * fast) with a body naming the request, and is listed in `unmatched`.
 *
 * `reply.json(value)` renders as the assistant's text, except for an Anthropic request that forces the
 * SDK's `json` tool, where it becomes that tool's input: tests need not know how a provider asks for JSON.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type WireApi =
  | "openai-chat"
  | "openai-embeddings"
  | "anthropic-messages"
  | "gemini-generate"
  | "gemini-embed"
  | "unknown";

export interface RecordedRequest {
  /** 0-based arrival order. */
  index: number;
  method: string;
  /** Path without the query string. */
  path: string;
  query: Record<string, string>;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  rawBody: string;
  /** The body parsed as JSON, or undefined when it was not JSON. */
  body: any;
  api: WireApi;
  stream: boolean;
  /** Model named by the request (body.model, or the Gemini path segment). */
  model?: string;
}

export interface ReplyUsage {
  input: number;
  output: number;
}

export type FinishReason = "stop" | "length" | "tool_calls" | "content_filter";

interface ReplyCommon {
  /** Wait this long before sending anything (longer than a client timeout = a timeout). */
  delayMs?: number;
  /** For streamed replies: wait this long between chunks. */
  chunkDelayMs?: number;
  /** For streamed replies: cut the connection after this many SSE events (a reset mid-stream). */
  dropAfterChunks?: number;
  /** Extra response headers. */
  headers?: Record<string, string>;
  usage?: ReplyUsage;
}

export interface ScriptedToolCall {
  id?: string;
  name: string;
  /** An object (serialised) or a raw string (sent as is, e.g. to test malformed arguments). */
  arguments: unknown;
}

export type Reply =
  | (ReplyCommon & {
      type: "text";
      text: string;
      reasoning?: string;
      finishReason?: FinishReason;
      /** How to split the text when streaming; default: word by word. */
      chunks?: string[];
    })
  | (ReplyCommon & { type: "tool-calls"; calls: ScriptedToolCall[]; text?: string })
  | (ReplyCommon & {
      type: "json";
      value: unknown /** Send this text instead of JSON.stringify(value). */;
      rawText?: string;
    })
  | (ReplyCommon & { type: "embedding"; vectors: number[][] })
  | (ReplyCommon & { type: "status"; status: number; message?: string; retryAfter?: number })
  | (ReplyCommon & { type: "raw"; status?: number; body: string; contentType?: string });

export type ReplySource = Reply | ((req: RecordedRequest) => Reply);

interface Rule {
  match?: (req: RecordedRequest) => boolean;
  reply: ReplySource;
  remaining: number;
}

/** Builders for the common replies. */
export const reply = {
  text(text: string, opts: Omit<Extract<Reply, { type: "text" }>, "type" | "text"> = {}): Reply {
    return { type: "text", text, ...opts };
  },
  toolCall(name: string, args: unknown, opts: ReplyCommon & { id?: string; text?: string } = {}): Reply {
    const { id, text, ...common } = opts;
    return { type: "tool-calls", calls: [{ id, name, arguments: args }], text, ...common };
  },
  toolCalls(calls: ScriptedToolCall[], opts: ReplyCommon & { text?: string } = {}): Reply {
    return { type: "tool-calls", calls, ...opts };
  },
  json(value: unknown, opts: ReplyCommon & { rawText?: string } = {}): Reply {
    return { type: "json", value, ...opts };
  },
  /** A JSON answer whose text is exactly `text` (e.g. malformed JSON a model might write). */
  jsonText(text: string, opts: ReplyCommon = {}): Reply {
    return { type: "json", value: undefined, rawText: text, ...opts };
  },
  embedding(vectors: number[][], opts: ReplyCommon = {}): Reply {
    return { type: "embedding", vectors, ...opts };
  },
  /** An error status in the provider's error shape; `retryAfter` (seconds) sets the Retry-After header. */
  status(status: number, opts: ReplyCommon & { message?: string; retryAfter?: number } = {}): Reply {
    return { type: "status", status, ...opts };
  },
  /** A literal body, e.g. malformed JSON with status 200. */
  raw(body: string, opts: ReplyCommon & { status?: number; contentType?: string } = {}): Reply {
    return { type: "raw", body, ...opts };
  },
};

export interface ReplayServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** `${url}/v1` — for OpenAI, OpenAI-compatible and Ollama clients. */
  readonly openaiBaseURL: string;
  /** `${url}/v1` — for the Anthropic client. */
  readonly anthropicBaseURL: string;
  /** `${url}/v1beta` — for the Gemini client. */
  readonly geminiBaseURL: string;
  /** Every request received, in order. */
  readonly requests: RecordedRequest[];
  /** Requests no script answered. */
  readonly unmatched: RecordedRequest[];
  /** The most recent request (throws if none arrived, so a test fails with a clear message). */
  last(): RecordedRequest;
  /** Replies answered in order, one request each. */
  enqueue(...replies: ReplySource[]): void;
  /** A reply for requests matching `match`, tried before the queue; `times` defaults to 1 (Infinity allowed). */
  when(match: (req: RecordedRequest) => boolean, r: ReplySource, opts?: { times?: number }): void;
  /** Scripted replies not yet used (queue plus finite `when` uses). */
  pending(): number;
  /** Forget scripts and recorded requests. */
  reset(): void;
  close(): Promise<void>;
}

export async function startReplayServer(): Promise<ReplayServer> {
  const requests: RecordedRequest[] = [];
  const unmatched: RecordedRequest[] = [];
  let queue: Rule[] = [];
  let rules: Rule[] = [];

  const pick = (req: RecordedRequest): Reply | undefined => {
    for (const rule of rules) {
      if (rule.remaining > 0 && rule.match?.(req)) {
        rule.remaining -= 1;
        return resolve(rule.reply, req);
      }
    }
    const next = queue.shift();
    return next ? resolve(next.reply, req) : undefined;
  };

  const server: Server = createServer((req, res) => {
    void handle(req, res).catch((err: unknown) => {
      if (!res.headersSent && !res.destroyed) {
        res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: `replay-server crashed: ${String(err)}` } }));
      }
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // Before we answer, 'close' on the response means the client hung up (e.g. its timeout fired).
    let clientGone = false;
    res.on("close", () => {
      clientGone = true;
    });
    const rawBody = await readBody(req);
    const recorded = record(req, rawBody, requests.length);
    requests.push(recorded);
    const r = pick(recorded);
    if (!r) {
      unmatched.push(recorded);
      sendJson(res, 400, {
        error: {
          message: `replay-server: no scripted reply for ${recorded.method} ${recorded.path} (request #${recorded.index})`,
          type: "invalid_request_error",
        },
      });
      return;
    }
    if (r.delayMs) {
      await sleep(r.delayMs);
      if (clientGone || res.destroyed) return;
    }
    await render(recorded, r, res);
  }

  // Node closes an idle keep-alive socket after 5 s; a client that picks that socket for its next request at the same
  // moment gets ECONNRESET (llm.connection). A loaded machine widens that race (chat2workflow's 237 cases saw it), and
  // tests run without retries, so the replay server keeps idle sockets until it closes (close() ends idle ones).
  server.keepAliveTimeout = 10 * 60_000;
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;

  return {
    url,
    openaiBaseURL: `${url}/v1`,
    anthropicBaseURL: `${url}/v1`,
    geminiBaseURL: `${url}/v1beta`,
    requests,
    unmatched,
    last() {
      const r = requests.at(-1);
      if (!r) throw new Error("replay-server: no request has arrived");
      return r;
    },
    enqueue(...replies) {
      for (const r of replies) queue.push({ reply: r, remaining: 1 });
    },
    when(match, r, opts = {}) {
      rules.push({ match, reply: r, remaining: opts.times ?? 1 });
    },
    pending() {
      return queue.length + rules.reduce((n, rule) => n + (Number.isFinite(rule.remaining) ? rule.remaining : 0), 0);
    },
    reset() {
      queue = [];
      rules = [];
      requests.length = 0;
      unmatched.length = 0;
    },
    close() {
      server.closeAllConnections();
      return new Promise<void>((ok) => server.close(() => ok()));
    },
  };
}

function resolve(source: ReplySource, req: RecordedRequest): Reply {
  return typeof source === "function" ? source(req) : source;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((ok, fail) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => ok(Buffer.concat(chunks).toString("utf8")));
    req.on("error", fail);
  });
}

function record(req: IncomingMessage, rawBody: string, index: number): RecordedRequest {
  const parsed = new URL(req.url ?? "/", "http://127.0.0.1");
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (v !== undefined) headers[k.toLowerCase()] = Array.isArray(v) ? v.join(", ") : v;
  }
  let body: unknown;
  try {
    body = rawBody ? JSON.parse(rawBody) : undefined;
  } catch {
    body = undefined;
  }
  const path = parsed.pathname;
  const api = detectApi(path);
  const b = (body ?? {}) as Record<string, unknown>;
  const geminiModel = /\/models\/([^/:]+):/.exec(path)?.[1];
  return {
    index,
    method: req.method ?? "GET",
    path,
    query: Object.fromEntries(parsed.searchParams),
    headers,
    rawBody,
    body,
    api,
    stream: api === "gemini-generate" ? path.endsWith(":streamGenerateContent") : b.stream === true,
    model: typeof b.model === "string" ? b.model : geminiModel,
  };
}

function detectApi(path: string): WireApi {
  if (path.endsWith("/chat/completions")) return "openai-chat";
  if (path.endsWith("/embeddings")) return "openai-embeddings";
  if (path.endsWith("/messages")) return "anthropic-messages";
  if (/:(stream)?generateContent$/i.test(path)) return "gemini-generate";
  if (/:(batchEmbedContents|embedContent)$/.test(path)) return "gemini-embed";
  return "unknown";
}

function sleep(ms: number): Promise<void> {
  return new Promise((ok) => setTimeout(ok, ms));
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.destroyed) return;
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

/** Writes server-sent events one by one, pausing between them when asked. */
async function sendSse(
  res: ServerResponse,
  events: Array<{ event?: string; data: unknown }>,
  opts: { chunkDelayMs?: number; dropAfterChunks?: number; headers?: Record<string, string>; done?: boolean },
): Promise<void> {
  if (res.destroyed) return;
  res.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    connection: "keep-alive",
    ...opts.headers,
  });
  for (const [i, ev] of events.entries()) {
    if (res.destroyed) return;
    if (opts.dropAfterChunks !== undefined && i >= opts.dropAfterChunks) {
      // Give the client a moment to read what was sent, so the cut lands after those events.
      await sleep(50);
      res.socket?.destroy();
      return;
    }
    const data = typeof ev.data === "string" ? ev.data : JSON.stringify(ev.data);
    // Wait for each write to be flushed so a later cut cannot swallow it.
    await new Promise<void>((ok) =>
      res.write(`${ev.event ? `event: ${ev.event}\n` : ""}data: ${data}\n\n`, () => ok()),
    );
    if (opts.chunkDelayMs) await sleep(opts.chunkDelayMs);
  }
  if (opts.done) res.write("data: [DONE]\n\n");
  res.end();
}

const DEFAULT_USAGE: ReplyUsage = { input: 10, output: 5 };

/** What a scripted reply means once the provider's JSON convention is applied. */
interface Answer {
  text: string;
  reasoning?: string;
  calls: Array<{ id: string; name: string; args: string; input: unknown }>;
  finish: FinishReason;
  chunks: string[];
}

function toAnswer(req: RecordedRequest, r: Reply): Answer {
  if (r.type === "text") {
    return {
      text: r.text,
      reasoning: r.reasoning,
      calls: [],
      finish: r.finishReason ?? "stop",
      chunks: r.chunks ?? splitWords(r.text),
    };
  }
  if (r.type === "tool-calls") {
    return {
      text: r.text ?? "",
      calls: r.calls.map((c, i) => toCall(c, i)),
      finish: "tool_calls",
      chunks: r.text ? splitWords(r.text) : [],
    };
  }
  // json
  const jr = r as Extract<Reply, { type: "json" }>;
  const text = jr.rawText ?? JSON.stringify(jr.value);
  if (req.api === "anthropic-messages" && anthropicForcesJsonTool(req)) {
    return {
      text: "",
      calls: [toCall({ name: "json", arguments: jr.rawText ?? jr.value }, 0)],
      finish: "tool_calls",
      chunks: [],
    };
  }
  return { text, calls: [], finish: "stop", chunks: splitInto(text, 3) };
}

function toCall(c: ScriptedToolCall, i: number): Answer["calls"][number] {
  const args = typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments ?? {});
  let input: unknown = c.arguments;
  if (typeof c.arguments === "string") {
    try {
      input = JSON.parse(c.arguments);
    } catch {
      input = c.arguments;
    }
  }
  return { id: c.id ?? `call_${i + 1}`, name: c.name, args, input };
}

/** The Anthropic SDK asks for JSON from older models through a `json` tool it forces (`any` or by name). */
function anthropicForcesJsonTool(req: RecordedRequest): boolean {
  const choice = req.body?.tool_choice;
  const tools: Array<{ name?: string }> = Array.isArray(req.body?.tools) ? req.body.tools : [];
  const hasJsonTool = tools.some((t) => t.name === "json");
  return hasJsonTool && (choice?.type === "any" || (choice?.type === "tool" && choice?.name === "json"));
}

function splitWords(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [];
}

function splitInto(text: string, n: number): string[] {
  const size = Math.max(1, Math.ceil(text.length / n));
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

async function render(req: RecordedRequest, r: Reply, res: ServerResponse): Promise<void> {
  const headers = r.headers ?? {};
  if (r.type === "raw") {
    if (res.destroyed) return;
    res.writeHead(r.status ?? 200, { "content-type": r.contentType ?? "application/json", ...headers });
    res.end(r.body);
    return;
  }
  if (r.type === "status") {
    const h = { ...headers, ...(r.retryAfter !== undefined ? { "retry-after": String(r.retryAfter) } : {}) };
    sendJson(res, r.status, errorBody(req.api, r.status, r.message ?? `scripted status ${r.status}`), h);
    return;
  }
  const usage = r.usage ?? DEFAULT_USAGE;
  if (r.type === "embedding") {
    if (req.api === "gemini-embed") {
      sendJson(res, 200, { embeddings: r.vectors.map((values) => ({ values })) }, headers);
    } else {
      sendJson(
        res,
        200,
        {
          object: "list",
          data: r.vectors.map((embedding, index) => ({ object: "embedding", index, embedding })),
          model: req.model ?? "replay",
          usage: { prompt_tokens: usage.input, total_tokens: usage.input },
        },
        headers,
      );
    }
    return;
  }
  const answer = toAnswer(req, r);
  const model = req.model ?? "replay-model";
  const opts = { chunkDelayMs: r.chunkDelayMs, dropAfterChunks: r.dropAfterChunks, headers };
  switch (req.api) {
    case "anthropic-messages":
      return req.stream
        ? sendSse(res, anthropicEvents(answer, usage, model), opts)
        : sendJson(res, 200, anthropicBody(answer, usage, model), headers);
    case "gemini-generate":
      return req.stream
        ? sendSse(res, geminiEvents(answer, usage, model), opts)
        : sendJson(res, 200, geminiBody(answer, usage, model), headers);
    default:
      return req.stream
        ? sendSse(res, openaiEvents(answer, usage, model, req.body?.stream_options?.include_usage === true), {
            ...opts,
            done: true,
          })
        : sendJson(res, 200, openaiBody(answer, usage, model), headers);
  }
}

function errorBody(api: WireApi, status: number, message: string): unknown {
  if (api === "anthropic-messages") {
    const type = status === 429 ? "rate_limit_error" : status >= 500 ? "api_error" : "invalid_request_error";
    return { type: "error", error: { type, message } };
  }
  if (api === "gemini-generate" || api === "gemini-embed") {
    return { error: { code: status, message, status: status === 429 ? "RESOURCE_EXHAUSTED" : "INTERNAL" } };
  }
  return { error: { message, type: status === 429 ? "rate_limit_exceeded" : "server_error", code: String(status) } };
}

// ---- OpenAI chat completions ----

function openaiBody(a: Answer, u: ReplyUsage, model: string): unknown {
  return {
    id: "chatcmpl-replay",
    object: "chat.completion",
    created: 1_700_000_000,
    model,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: a.calls.length && !a.text ? null : a.text,
          ...(a.reasoning ? { reasoning_content: a.reasoning } : {}),
          ...(a.calls.length
            ? {
                tool_calls: a.calls.map((c) => ({
                  id: c.id,
                  type: "function",
                  function: { name: c.name, arguments: c.args },
                })),
              }
            : {}),
        },
        finish_reason: a.finish,
      },
    ],
    usage: { prompt_tokens: u.input, completion_tokens: u.output, total_tokens: u.input + u.output },
  };
}

function openaiEvents(a: Answer, u: ReplyUsage, model: string, includeUsage: boolean): Array<{ data: unknown }> {
  const chunk = (delta: unknown, finish: string | null = null) => ({
    data: {
      id: "chatcmpl-replay",
      object: "chat.completion.chunk",
      created: 1_700_000_000,
      model,
      choices: [{ index: 0, delta, finish_reason: finish }],
    },
  });
  // The first text piece rides on the role chunk, so a stream with chunkDelayMs shows text before its first pause.
  const [firstPiece, ...restPieces] = a.reasoning ? ["", ...a.chunks] : a.chunks;
  const events: Array<{ data: Record<string, unknown> }> = [chunk({ role: "assistant", content: firstPiece ?? "" })];
  if (a.reasoning) events.push(chunk({ reasoning_content: a.reasoning }));
  for (const piece of restPieces) if (piece) events.push(chunk({ content: piece }));
  a.calls.forEach((c, index) => {
    // Arguments arrive in two pieces so clients must concatenate them.
    const half = Math.ceil(c.args.length / 2);
    events.push(
      chunk({
        tool_calls: [
          { index, id: c.id, type: "function", function: { name: c.name, arguments: c.args.slice(0, half) } },
        ],
      }),
    );
    events.push(chunk({ tool_calls: [{ index, function: { arguments: c.args.slice(half) } }] }));
  });
  events.push(chunk({}, a.finish));
  const usage = { prompt_tokens: u.input, completion_tokens: u.output, total_tokens: u.input + u.output };
  if (includeUsage) {
    events.push({
      data: {
        id: "chatcmpl-replay",
        object: "chat.completion.chunk",
        created: 1_700_000_000,
        model,
        choices: [],
        usage,
      },
    });
  } else {
    // Servers such as vLLM report usage on the last chunk when asked; without the flag we still
    // attach it to the finish chunk so clients that read it there see the numbers.
    const last = events[events.length - 1];
    if (last) last.data.usage = usage;
  }
  return events;
}

// ---- Anthropic messages ----

function anthropicStop(f: FinishReason): string {
  return f === "tool_calls" ? "tool_use" : f === "length" ? "max_tokens" : "end_turn";
}

function anthropicBody(a: Answer, u: ReplyUsage, model: string): unknown {
  const content: unknown[] = [];
  if (a.reasoning) content.push({ type: "thinking", thinking: a.reasoning, signature: "replay-signature" });
  if (a.text) content.push({ type: "text", text: a.text });
  for (const c of a.calls) content.push({ type: "tool_use", id: c.id, name: c.name, input: c.input });
  return {
    id: "msg_replay",
    type: "message",
    role: "assistant",
    model,
    content,
    stop_reason: anthropicStop(a.finish),
    stop_sequence: null,
    usage: { input_tokens: u.input, output_tokens: u.output },
  };
}

function anthropicEvents(a: Answer, u: ReplyUsage, model: string): Array<{ event: string; data: unknown }> {
  const events: Array<{ event: string; data: unknown }> = [];
  const ev = (type: string, data: Record<string, unknown>) => events.push({ event: type, data: { type, ...data } });
  ev("message_start", {
    message: {
      id: "msg_replay",
      type: "message",
      role: "assistant",
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: u.input, output_tokens: 0 },
    },
  });
  let index = 0;
  if (a.reasoning) {
    ev("content_block_start", { index, content_block: { type: "thinking", thinking: "" } });
    ev("content_block_delta", { index, delta: { type: "thinking_delta", thinking: a.reasoning } });
    ev("content_block_delta", { index, delta: { type: "signature_delta", signature: "replay-signature" } });
    ev("content_block_stop", { index });
    index += 1;
  }
  if (a.chunks.length) {
    ev("content_block_start", { index, content_block: { type: "text", text: "" } });
    for (const piece of a.chunks) ev("content_block_delta", { index, delta: { type: "text_delta", text: piece } });
    ev("content_block_stop", { index });
    index += 1;
  }
  for (const c of a.calls) {
    ev("content_block_start", { index, content_block: { type: "tool_use", id: c.id, name: c.name, input: {} } });
    const half = Math.ceil(c.args.length / 2);
    ev("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: c.args.slice(0, half) } });
    ev("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: c.args.slice(half) } });
    ev("content_block_stop", { index });
    index += 1;
  }
  ev("message_delta", {
    delta: { stop_reason: anthropicStop(a.finish), stop_sequence: null },
    usage: { output_tokens: u.output },
  });
  ev("message_stop", {});
  return events;
}

// ---- Gemini generateContent ----

function geminiFinish(f: FinishReason): string {
  return f === "length" ? "MAX_TOKENS" : f === "content_filter" ? "SAFETY" : "STOP";
}

function geminiUsage(u: ReplyUsage): unknown {
  return { promptTokenCount: u.input, candidatesTokenCount: u.output, totalTokenCount: u.input + u.output };
}

function geminiParts(a: Answer, text: string): unknown[] {
  const parts: unknown[] = [];
  if (a.reasoning) parts.push({ text: a.reasoning, thought: true });
  if (text) parts.push({ text });
  for (const c of a.calls) parts.push({ functionCall: { name: c.name, args: c.input } });
  return parts;
}

function geminiBody(a: Answer, u: ReplyUsage, model: string): unknown {
  return {
    candidates: [
      { content: { role: "model", parts: geminiParts(a, a.text) }, finishReason: geminiFinish(a.finish), index: 0 },
    ],
    usageMetadata: geminiUsage(u),
    modelVersion: model,
  };
}

function geminiEvents(a: Answer, u: ReplyUsage, model: string): Array<{ data: unknown }> {
  const pieces = a.chunks.length ? a.chunks : [""];
  return pieces.map((piece, i) => {
    const last = i === pieces.length - 1;
    const parts =
      i === 0
        ? geminiParts(last ? a : { ...a, calls: [] }, piece)
        : geminiParts({ ...a, reasoning: undefined, calls: last ? a.calls : [] }, piece);
    return {
      data: {
        candidates: [
          { content: { role: "model", parts }, ...(last ? { finishReason: geminiFinish(a.finish) } : {}), index: 0 },
        ],
        ...(last ? { usageMetadata: geminiUsage(u) } : {}),
        modelVersion: model,
      },
    };
  });
}
