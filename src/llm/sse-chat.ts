/**
 * The thin streaming path for OpenAI-compatible chat completions (openai-compatible and ollama endpoints): the
 * request is built once and the server-sent events are read directly, instead of through the AI SDK, whose
 * request preparation and per-chunk schema validation and stream transforms cost more CPU than the rest of a
 * workflow's LLM node (bench/llm.ts). It covers what the LLM node streams — text (and reasoning) without tools
 * or JSON mode, text-only messages; everything else takes the AI SDK path. Its result, usage, finish reasons
 * and errors are the SDK path's: HTTP errors become the SDK's APICallError, so `classify` (retry.ts) gives
 * both paths the same codes, retries and Retry-After handling.
 */
import { APICallError, type ModelMessage } from "ai";
import { createParser } from "eventsource-parser";
import type { Usage } from "../ir/services.js";
import type { EndpointConfig } from "./config.js";
import { LlmError } from "./errors.js";

export interface SseChatRequest {
  url: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
  /**
   * Whose chat model the answer must match: the OpenAI-compatible model reads `reasoning_content`; OpenAI's own
   * reads none, and streams a refusal as text that makes a `stop` a `content_filter`.
   */
  dialect: "compatible" | "openai";
}

export interface SseChatResult {
  text: string;
  reasoning?: string;
  toolCalls: never[];
  usage: Usage;
  finishReason: string;
}

/** Call settings, as service.ts derives them from Dify's completion_params for both the SDK and the thin path. */
export interface SseCallSettings {
  temperature?: number;
  topP?: number;
  topK?: number;
  maxOutputTokens?: number;
  presencePenalty?: number;
  frequencyPenalty?: number;
  seed?: number;
  stopSequences?: string[];
}

/** Largest buffered SSE line or event: a stream that never ends its lines is refused, not buffered forever. */
const MAX_EVENT_CHARS = 8 * 1024 * 1024;

/** Where OpenAI's SDK sends a request when the endpoint names no baseURL (it reads OPENAI_BASE_URL first). */
export function openaiDefaultBaseURL(): string {
  return process.env.OPENAI_BASE_URL || "https://api.openai.com/v1";
}

/**
 * Whether OpenAI's SDK chat model sends this model the plain chat completions request (the one built here). It
 * reshapes the request for reasoning models (o-series; gpt-5 and later but the gpt-5 chat variants: `developer`
 * role, `max_completion_tokens`, no sampling settings) and drops temperature for the search-preview models;
 * those stay on the SDK path. The rules are the SDK's own (getOpenAILanguageModelCapabilities, which it does not
 * export); test/llm/sse-chat.test.ts sends each kind through both paths, so an SDK that changes them fails there.
 */
export function openaiSendsPlainChat(modelId: string): boolean {
  if (/^o(\d+)(?:-|$)/.test(modelId)) return false;
  if (modelId.startsWith("gpt-4o-search-preview") || modelId.startsWith("gpt-4o-mini-search-preview")) return false;
  const gpt = /^gpt-(\d+)(?:\.(\d+))?(?:-(.+))?$/.exec(modelId);
  if (!gpt || Number(gpt[1]) < 5) return true;
  // gpt-5-chat-latest and the like are chat models; gpt-5.1-chat is not (the SDK's own distinction).
  return gpt[2] === undefined && (gpt[3]?.startsWith("chat") ?? false);
}

/**
 * The request the AI SDK's chat model would send (OpenAI-compatible, or OpenAI's own for the models it sends the
 * plain request), or undefined when this path does not cover the call (another provider, another OpenAI model,
 * OpenAI without a key — the SDK's own error then — a message with files, tool calls or tool results).
 */
export function sseChatRequest(
  ep: EndpointConfig,
  apiKey: string | undefined,
  modelId: string,
  messages: ModelMessage[],
  settings: SseCallSettings,
  defaultBaseURL: string,
): SseChatRequest | undefined {
  const openai = ep.provider === "openai";
  if (
    openai ? !apiKey || !openaiSendsPlainChat(modelId) : ep.provider !== "openai-compatible" && ep.provider !== "ollama"
  )
    return undefined;
  const wire: Array<{ role: string; content: unknown }> = [];
  for (const m of messages) {
    const content = wireContent(m);
    if (content === undefined) return undefined;
    wire.push({ role: m.role, content });
  }
  // topK is not part of the chat completions API; the SDK drops it with a warning, and so does this path.
  const body: Record<string, unknown> = {
    model: modelId,
    max_tokens: settings.maxOutputTokens,
    temperature: settings.temperature,
    top_p: settings.topP,
    frequency_penalty: settings.frequencyPenalty,
    presence_penalty: settings.presencePenalty,
    stop: settings.stopSequences,
    seed: settings.seed,
    messages: wire,
    stream: true,
    stream_options: { include_usage: true },
  };
  const headers: Record<string, string> = {
    "content-type": "application/json",
    ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
    ...ep.headers,
  };
  const base = (ep.baseURL ?? defaultBaseURL).replace(/\/+$/, "");
  return { url: `${base}/chat/completions`, headers, body, dialect: openai ? "openai" : "compatible" };
}

/** A message's content on the wire as the SDK sends it, or undefined for what only the SDK path sends. */
function wireContent(m: ModelMessage): unknown {
  if (m.role === "tool") return undefined;
  if (typeof m.content === "string") return m.content;
  const parts = m.content as ReadonlyArray<{ type: string; text?: string }>;
  if (!parts.every((p) => p.type === "text" && typeof p.text === "string")) return undefined;
  if (m.role === "user") {
    return parts.length === 1 ? parts[0]!.text : parts.map((p) => ({ type: "text", text: p.text }));
  }
  return parts.map((p) => p.text).join("");
}

/**
 * One streamed attempt: POST, then read the events as they come, passing each text delta on. `keepAlive` is
 * called on every event (the attempt's silence timer). Throws what the SDK path throws for the same failure.
 */
export async function streamSseChat(
  req: SseChatRequest,
  signal: AbortSignal,
  onText: (delta: string) => void,
  keepAlive: () => void,
  where: { endpoint: string; model: string },
): Promise<SseChatResult> {
  const res = await fetch(req.url, {
    method: "POST",
    headers: req.headers,
    body: JSON.stringify(req.body),
    signal,
  }).catch((e: unknown) => {
    throw new APICallError({
      message: `Cannot connect to API: ${e instanceof Error ? e.message : String(e)}`,
      url: req.url,
      requestBodyValues: req.body,
      cause: e,
      isRetryable: true,
    });
  });
  if (!res.ok || !res.body) throw await httpError(req, res);
  const state = new StreamState(onText, where, req.dialect);
  const parser = createParser({
    onEvent: (ev) => state.event(ev.data),
    onError: (e) => {
      state.fail(
        new LlmError("llm.bad_response", `${describe(where)} sent a malformed event stream: ${e.message}`, {}, true),
      );
    },
    maxBufferSize: MAX_EVENT_CHARS,
  });
  const decoder = new TextDecoder();
  const reader = res.body.getReader();
  try {
    for (let r = await reader.read(); !r.done; r = await reader.read()) {
      keepAlive();
      parser.feed(decoder.decode(r.value, { stream: true }));
      state.throwIfFailed();
    }
    parser.feed(decoder.decode());
    state.throwIfFailed();
  } finally {
    reader.releaseLock();
  }
  return state.result();
}

/** What the events have said so far. */
class StreamState {
  private text = "";
  private reasoning = "";
  private usage: Usage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
  private finishReason = "other";
  private refused = false;
  private error: unknown;

  constructor(
    private readonly onText: (delta: string) => void,
    private readonly where: { endpoint: string; model: string },
    private readonly dialect: SseChatRequest["dialect"],
  ) {}

  fail(e: unknown): void {
    this.error ??= e;
  }

  throwIfFailed(): void {
    if (this.error !== undefined) throw this.error;
  }

  /** One `data:` payload: parsed once, and only the fields used are read, each checked for its type. */
  event(data: string): void {
    if (this.error !== undefined || data === "[DONE]") return;
    let chunk: unknown;
    try {
      chunk = JSON.parse(data);
    } catch {
      this.fail(
        new LlmError(
          "llm.bad_response",
          `${describe(this.where)} sent an event that is not JSON: ${data.slice(0, 200)}`,
          {},
          true,
        ),
      );
      return;
    }
    if (!isRecord(chunk)) return;
    if (isRecord(chunk.error)) {
      const message = typeof chunk.error.message === "string" ? chunk.error.message : JSON.stringify(chunk.error);
      this.fail(new LlmError("llm.call_failed", `Call to ${describe(this.where)} failed: ${message}`, {}));
      return;
    }
    if (isRecord(chunk.usage)) this.usage = usageOf(chunk.usage);
    const choice = Array.isArray(chunk.choices) ? chunk.choices[0] : undefined;
    if (!isRecord(choice)) return;
    if (typeof choice.finish_reason === "string") this.finishReason = finishReasonOf(choice.finish_reason);
    const delta = choice.delta;
    if (!isRecord(delta)) return;
    if (this.dialect === "openai") {
      // OpenAI's model streams a refusal as text; its stop then reports content_filter.
      this.append(delta.content);
      if (typeof delta.refusal === "string" && delta.refusal !== "") {
        this.refused = true;
        this.append(delta.refusal);
      }
      return;
    }
    const reasoning = delta.reasoning_content ?? delta.reasoning;
    if (typeof reasoning === "string") this.reasoning += reasoning;
    this.append(delta.content);
  }

  private append(delta: unknown): void {
    if (typeof delta === "string" && delta !== "") {
      this.text += delta;
      this.onText(delta);
    }
  }

  result(): SseChatResult {
    return {
      text: this.text,
      reasoning: this.reasoning || undefined,
      toolCalls: [],
      usage: this.usage,
      finishReason: this.refused && this.finishReason === "stop" ? "content_filter" : this.finishReason,
    };
  }
}

function describe(where: { endpoint: string; model: string }): string {
  return `${where.endpoint} (${where.model})`;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

const count = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : 0);

function usageOf(u: Record<string, unknown>): Usage {
  const promptTokens = count(u.prompt_tokens);
  const completionTokens = count(u.completion_tokens);
  return { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens };
}

/** The SDK maps OpenAI's reasons to its own and service.ts maps them back: the same spelling comes out. */
function finishReasonOf(reason: string): string {
  switch (reason) {
    case "stop":
    case "length":
    case "content_filter":
    case "tool_calls":
      return reason;
    case "function_call":
      return "tool_calls";
    default:
      return "other";
  }
}

/** A non-2xx answer as the SDK reports it: its status, headers, body and the server's own message. */
async function httpError(req: SseChatRequest, res: Response): Promise<APICallError> {
  const body = await res.text().catch(() => "");
  let message = res.statusText || `HTTP ${res.status}`;
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } };
    if (typeof parsed?.error?.message === "string") message = parsed.error.message;
  } catch {
    // Not JSON: the status text stands.
  }
  return new APICallError({
    message,
    url: req.url,
    requestBodyValues: req.body,
    statusCode: res.status,
    responseHeaders: Object.fromEntries(res.headers),
    responseBody: body,
    isRetryable: res.status === 408 || res.status === 409 || res.status === 429 || res.status >= 500,
  });
}
