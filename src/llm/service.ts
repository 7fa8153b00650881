/**
 * The LlmService implementation: routes each request to an endpoint, calls it through the AI SDK with our
 * own retries and timeout, streams deltas, and enforces JSON output (parse, validate, one repair turn).
 */
import {
  embedMany,
  generateText,
  jsonSchema,
  type LanguageModel,
  type LanguageModelUsage,
  type ModelMessage,
  Output,
  type OutputInterface,
  streamText,
  type ToolCallRepairFunction,
  type ToolSet,
  tool,
} from "ai";
import { jsonrepair } from "jsonrepair";
import { NotConfiguredError } from "../ir/errors.js";
import type { LlmRequest, LlmResponse, LlmService, ModelRef, ToolCall, Usage } from "../ir/services.js";
import { type LlmConfig, type LlmConfigInput, parseLlmConfig } from "./config.js";
import { LlmError } from "./errors.js";
import { parseModelJson, validateJsonSchema } from "./json.js";
import { toModelMessages } from "./messages.js";
import {
  apiKeyOf,
  DEFAULT_OLLAMA_BASE_URL,
  type EndpointModels,
  type Env,
  endpointModels,
  providerOptionsFor,
} from "./providers.js";
import { type ResolvedModel, resolveModel } from "./resolve.js";
import { abortableSleep, NoRetry, type RetryEvent, withRetries } from "./retry.js";
import {
  openaiDefaultBaseURL,
  type SseCallSettings,
  type SseChatRequest,
  sseChatRequest,
  streamSseChat,
} from "./sse-chat.js";

export interface LlmCallEvent {
  endpoint: string;
  model: string;
  usage: Usage;
  finishReason: string;
  /** HTTP attempts this call took (1 = no retry). */
  attempts: number;
  durationMs: number;
}

export interface LlmServiceOptions {
  /** Where apiKeyEnv and provider key variables are read (default: process.env). */
  env?: Env;
  /** Called before each retry with the delay chosen. */
  onRetry?: (e: RetryEvent) => void;
  /** Called after each successful model call (a repair turn is a second call). */
  onCall?: (e: LlmCallEvent) => void;
  /**
   * false: every call goes through the AI SDK, streamed text from OpenAI and OpenAI-compatible endpoints too
   * (which otherwise take the thin path of sse-chat.ts). For comparing the two paths, and a way back should a
   * server answer the thin path differently.
   */
  thinStreaming?: boolean;
  /** Injectable for tests; defaults wait for real / use Math.random. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
}

export interface LlmChatResponse extends LlmResponse {
  /** The parsed, schema-checked value when the request asked for JSON (`text` is its canonical JSON). */
  json?: unknown;
  endpoint: string;
  model: string;
}

export interface UsageTotals extends Usage {
  calls: number;
  byModel: Record<string, Usage & { calls: number }>;
}

export interface WeftLlmService extends LlmService {
  chat(req: LlmRequest): Promise<LlmChatResponse>;
  embed(texts: string[], model?: ModelRef): Promise<number[][]>;
  /** Which endpoint and model id a request would use; throws NotConfiguredError if none. */
  resolve(model: Pick<ModelRef, "provider" | "name">): ResolvedModel;
  /** Tokens used by successful calls since creation, in total and per `endpoint/model`. */
  usage(): UsageTotals;
}

type Mode = "text" | "json" | "tool";

interface CallResult {
  text: string;
  reasoning?: string;
  toolCalls: Array<ToolCall & { invalid?: string }>;
  usage: Usage;
  finishReason: string;
}

const JSON_TOOL = "respond_json";

export function createLlmService(config: LlmConfigInput | LlmConfig, opts: LlmServiceOptions = {}): WeftLlmService {
  const cfg = parseLlmConfig(config);
  const env = opts.env ?? process.env;
  const deps = { sleep: opts.sleep ?? abortableSleep, random: opts.random ?? Math.random, onRetry: opts.onRetry };
  const modelsByEndpoint = new Map<string, EndpointModels>();
  const totals: UsageTotals = { calls: 0, promptTokens: 0, completionTokens: 0, totalTokens: 0, byModel: {} };

  const modelsOf = (r: ResolvedModel): EndpointModels => {
    let m = modelsByEndpoint.get(r.endpointName);
    if (!m) {
      m = endpointModels(r.endpointName, r.endpoint, env);
      modelsByEndpoint.set(r.endpointName, m);
    }
    return m;
  };

  const record = (r: ResolvedModel, res: CallResult, attempts: number, started: number) => {
    const key = `${r.endpointName}/${r.modelId}`;
    const slot = totals.byModel[key] ?? { calls: 0, promptTokens: 0, completionTokens: 0, totalTokens: 0 };
    totals.byModel[key] = slot;
    for (const t of [totals, slot]) {
      t.calls += 1;
      t.promptTokens += res.usage.promptTokens;
      t.completionTokens += res.usage.completionTokens;
      t.totalTokens += res.usage.totalTokens;
    }
    opts.onCall?.({
      endpoint: r.endpointName,
      model: r.modelId,
      usage: res.usage,
      finishReason: res.finishReason,
      attempts,
      durationMs: Date.now() - started,
    });
  };

  /** One logical model call (retried as needed). */
  const call = async (
    r: ResolvedModel,
    req: LlmRequest,
    messages: ModelMessage[],
    mode: Mode,
    onText: ((d: string) => void) | undefined,
  ): Promise<CallResult> => {
    const ctx = { endpoint: r.endpointName, model: r.modelId };
    const timeoutMs = r.endpoint.timeoutMs ?? cfg.timeoutMs;
    const started = Date.now();
    let attempts = 0;
    // Streamed text from an OpenAI-compatible server: built once here, read without the AI SDK.
    const thin = onText && opts.thinStreaming !== false ? thinRequest(r, req, messages, mode, env) : undefined;
    const model = thin ? undefined : modelsOf(r).language(r.modelId);
    const result = await withRetries(ctx, cfg.retry, timeoutMs, req.signal, deps, (signal, n, keepAlive) => {
      attempts = n;
      if (thin && onText) return streamThin(thin, signal, onText, keepAlive, ctx);
      const args = buildArgs(r, req, messages, mode, model!, signal);
      return onText ? streamOnce(args, signal, onText, keepAlive) : generateOnce(args);
    });
    record(r, result, attempts, started);
    return result;
  };

  return {
    resolve: (ref) => resolveModel(cfg, ref),

    usage: () => structuredClone(totals),

    async chat(req) {
      checkRequest(req);
      const r = resolveModel(cfg, req.model);
      const messages = toModelMessages(req.messages);
      const mode: Mode = req.json
        ? r.endpoint.structuredOutput === "tool" && !req.tools?.length
          ? "tool"
          : "json"
        : "text";
      const first = await call(r, req, messages, mode, req.onText);
      // With tools offered, a tool call is a valid answer even when JSON was asked for the final text.
      if (mode === "text" || (mode === "json" && first.toolCalls.length > 0)) return finishText(first, r);

      const firstCheck = checkJson(first, mode, req.json?.schema);
      if (firstCheck.ok) return finishJson(first, firstCheck.value, r);

      // One repair turn: show the model its answer and what was wrong with it.
      const feedback = `Your answer was not valid: ${firstCheck.errors.join("; ")}. Reply again with only the corrected JSON${req.json?.schema ? " matching the schema" : ""}.`;
      const repairMessages: ModelMessage[] = [...messages, ...repairTurn(first, mode, feedback)];
      const second = await call(r, req, repairMessages, mode, undefined);
      const secondCheck = checkJson(second, mode, req.json?.schema);
      const usage = addUsage(first.usage, second.usage);
      if (secondCheck.ok) return finishJson({ ...second, usage }, secondCheck.value, r);
      throw new LlmError(
        "llm.structured_output_invalid",
        `${r.endpointName} (${r.modelId}) did not return valid JSON after one repair attempt: ${secondCheck.errors.join("; ")}`,
        {
          endpoint: r.endpointName,
          model: r.modelId,
          errors: secondCheck.errors,
          firstErrors: firstCheck.errors,
          text: rawAnswer(second, mode).slice(0, 2000),
          usage,
        },
      );
    },

    async embed(texts, ref) {
      const defaultEndpoint = cfg.default ? cfg.endpoints[cfg.default] : undefined;
      const r: ResolvedModel | undefined = ref
        ? resolveModel(cfg, ref)
        : cfg.default && defaultEndpoint
          ? {
              endpointName: cfg.default,
              endpoint: defaultEndpoint,
              modelId: defaultEndpoint.embeddingModel ?? "",
              via: "default",
            }
          : undefined;
      if (!r) {
        throw new NotConfiguredError(
          "llm.not_configured",
          "No endpoint is configured for embeddings (set a default endpoint with embeddingModel)",
          {},
        );
      }
      const id = r.endpoint.embeddingModel ?? ref?.name;
      if (!id) {
        throw new NotConfiguredError(
          "llm.not_configured",
          `Endpoint "${r.endpointName}" has no embeddingModel and the request names no model`,
          { endpoint: r.endpointName },
        );
      }
      const model = modelsOf(r).embedding(id);
      const ctx = { endpoint: r.endpointName, model: id };
      const timeoutMs = r.endpoint.timeoutMs ?? cfg.timeoutMs;
      const out = await withRetries(ctx, cfg.retry, timeoutMs, undefined, deps, (signal) =>
        embedMany({ model, values: texts, maxRetries: 0, abortSignal: signal }),
      );
      return out.embeddings;
    },
  };
}

/** Requests come from workflow configs, so malformed ones get a typed error rather than a TypeError. */
function checkRequest(req: LlmRequest): void {
  const bad = (field: string, reason: string) =>
    new LlmError("llm.bad_request", `Invalid LLM request: ${field} ${reason}`, { field });
  if (!req || typeof req !== "object") throw bad("request", "must be an object");
  if (!req.model || typeof req.model !== "object") throw bad("model", "must be {provider, name}");
  if (typeof req.model.provider !== "string" || typeof req.model.name !== "string") {
    throw bad("model", "needs string provider and name");
  }
  if (!Array.isArray(req.messages)) throw bad("messages", "must be an array");
  for (const [i, t] of (req.tools ?? []).entries()) {
    if (!t || typeof t.name !== "string" || !t.name) throw bad(`tools[${i}].name`, "must be a non-empty string");
    if (!t.parameters || typeof t.parameters !== "object")
      throw bad(`tools[${i}].parameters`, "must be a JSON Schema object");
  }
}

// ---------- one attempt ----------

type CallArgs = Parameters<typeof generateText>[0];

function buildArgs(
  r: ResolvedModel,
  req: LlmRequest,
  messages: ModelMessage[],
  mode: Mode,
  model: LanguageModel,
  signal: AbortSignal,
): CallArgs {
  const tools: ToolSet = {};
  for (const spec of req.tools ?? []) {
    tools[spec.name] = tool({ description: spec.description, inputSchema: jsonSchema(spec.parameters as never) });
  }
  if (mode === "tool") {
    tools[JSON_TOOL] = tool({
      description: "Return the answer as this function's arguments.",
      inputSchema: jsonSchema((req.json?.schema ?? { type: "object" }) as never),
    });
  }
  const hasTools = Object.keys(tools).length > 0;
  return {
    model,
    messages: mode === "json" ? withJsonInstruction(messages, r.endpoint, req.json?.schema) : messages,
    // Workflow prompts legitimately carry system messages anywhere in the conversation.
    allowSystemInMessages: true,
    ...(hasTools ? { tools } : {}),
    ...(mode === "tool" ? { toolChoice: { type: "tool", toolName: JSON_TOOL } as const } : {}),
    ...(mode === "json"
      ? { output: jsonOutput(enforcesSchema(r.endpoint) ? req.json?.schema : undefined, req.json?.name) }
      : {}),
    ...completionSettings(r.endpointName, req.model.completion_params),
    providerOptions: providerOptionsFor(r.endpoint),
    maxRetries: 0,
    abortSignal: signal,
    experimental_repairToolCall: repairToolInput,
  };
}

/** Whether the endpoint's JSON mode takes a schema; plain OpenAI-compatible servers only take json_object. */
function enforcesSchema(ep: ResolvedModel["endpoint"]): boolean {
  return !(ep.provider === "openai-compatible" || ep.provider === "ollama") || ep.supportsStructuredOutputs === true;
}

/**
 * Where the wire cannot carry the schema, the prompt must: otherwise the model has to guess the shape
 * (and OpenAI's json_object mode rejects prompts that never mention JSON). The instruction joins the first
 * system message because many local chat templates refuse a system message anywhere but first.
 */
function withJsonInstruction(
  messages: ModelMessage[],
  ep: ResolvedModel["endpoint"],
  schema: Record<string, unknown> | undefined,
): ModelMessage[] {
  if (schema && enforcesSchema(ep)) return messages;
  const instruction = schema
    ? `Respond with only a JSON value that matches this JSON Schema, with no other text:\n${JSON.stringify(schema)}`
    : "Respond with only a JSON value, with no other text.";
  const first = messages[0];
  if (first?.role === "system") {
    return [{ role: "system", content: `${first.content}\n\n${instruction}` }, ...messages.slice(1)];
  }
  return [{ role: "system", content: instruction }, ...messages];
}

/**
 * Asks the provider for JSON (its JSON mode, with the schema where supported) but leaves parsing to us:
 * the SDK's own object output throws on the first slip, and we want jsonrepair and a repair turn first.
 */
function jsonOutput(
  schema: Record<string, unknown> | undefined,
  name: string | undefined,
): OutputInterface<string, string, never> {
  const base = Output.text();
  return {
    ...base,
    name: "json",
    responseFormat: Promise.resolve({
      type: "json" as const,
      ...(schema ? { schema: schema as never } : {}),
      ...(name ? { name } : {}),
    }),
  };
}

/** Tool arguments with small JSON slips (trailing commas, single quotes) are fixed rather than rejected. */
const repairToolInput: ToolCallRepairFunction<ToolSet> = async ({ toolCall, error }) => {
  if (error.name === "AI_NoSuchToolError") return null;
  try {
    return { ...toolCall, input: JSON.stringify(JSON.parse(jsonrepair(toolCall.input))) };
  } catch {
    return null;
  }
};

async function generateOnce(args: CallArgs): Promise<CallResult> {
  const res = await generateText(args);
  return {
    text: res.text,
    reasoning: res.reasoningText || undefined,
    toolCalls: res.toolCalls.map(toToolCall),
    usage: toUsage(res.usage),
    finishReason: toFinishReason(res.finishReason),
  };
}

async function streamOnce(
  args: CallArgs,
  signal: AbortSignal,
  onText: (d: string) => void,
  keepAlive: () => void,
): Promise<CallResult> {
  // Raw chunks let keepAlive see every SSE event, including those that carry no text.
  const res = streamText({ ...(args as Parameters<typeof streamText>[0]), includeRawChunks: true, onError: () => {} });
  let text = "";
  let reasoning = "";
  let emitted = false;
  const toolCalls: CallResult["toolCalls"] = [];
  let usage: Usage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
  let finishReason = "other";
  const fail = (e: unknown): never => {
    // Once text reached the caller a retry would repeat it; let the error through unretried.
    throw emitted ? new NoRetry(e) : e;
  };
  try {
    for await (const part of res.fullStream) {
      keepAlive();
      switch (part.type) {
        case "text-delta":
          if (part.text) {
            text += part.text;
            emitted = true;
            onText(part.text);
          }
          break;
        case "reasoning-delta":
          reasoning += part.text;
          break;
        case "tool-call":
          toolCalls.push(toToolCall(part));
          break;
        case "finish":
          usage = toUsage(part.totalUsage);
          finishReason = toFinishReason(part.finishReason);
          break;
        case "error":
          fail(part.error);
          break;
        case "abort":
          fail(signal.reason ?? new Error("aborted"));
          break;
        default:
          break;
      }
    }
  } catch (e) {
    if (e instanceof NoRetry) throw e;
    fail(signal.aborted ? (signal.reason ?? e) : e);
  }
  if (signal.aborted) fail(signal.reason);
  return { text, reasoning: reasoning || undefined, toolCalls, usage, finishReason };
}

/** The thin path's request when it covers this call: streamed text, no tools, no JSON mode (see sse-chat.ts). */
function thinRequest(
  r: ResolvedModel,
  req: LlmRequest,
  messages: ModelMessage[],
  mode: Mode,
  env: Env,
): SseChatRequest | undefined {
  if (mode !== "text" || (req.tools?.length ?? 0) > 0) return undefined;
  const provider = r.endpoint.provider;
  if (provider !== "openai-compatible" && provider !== "ollama" && provider !== "openai") return undefined;
  let settings: ReturnType<typeof completionSettings>;
  try {
    settings = completionSettings(r.endpointName, req.model.completion_params);
  } catch {
    // A bad parameter fails on the SDK path, inside the retry loop, as it always has.
    return undefined;
  }
  const apiKey = apiKeyOf(r.endpointName, r.endpoint, env);
  const defaultBaseURL = provider === "openai" ? openaiDefaultBaseURL() : DEFAULT_OLLAMA_BASE_URL;
  return sseChatRequest(r.endpoint, apiKey, r.modelId, messages, settings, defaultBaseURL);
}

async function streamThin(
  thin: SseChatRequest,
  signal: AbortSignal,
  onText: (d: string) => void,
  keepAlive: () => void,
  where: { endpoint: string; model: string },
): Promise<CallResult> {
  let emitted = false;
  try {
    return await streamSseChat(
      thin,
      signal,
      (d) => {
        emitted = true;
        onText(d);
      },
      keepAlive,
      where,
    );
  } catch (e) {
    // As on the SDK path: once text reached the caller a retry would repeat it.
    const cause = signal.aborted ? (signal.reason ?? e) : e;
    throw emitted ? new NoRetry(cause) : cause;
  }
}

// ---------- JSON checking ----------

type Check = { ok: true; value: unknown } | { ok: false; errors: string[] };

function checkJson(res: CallResult, mode: Mode, schema: Record<string, unknown> | undefined): Check {
  let value: unknown;
  if (mode === "tool") {
    const call = res.toolCalls.find((c) => c.name === JSON_TOOL);
    if (!call) return { ok: false, errors: [`you did not call ${JSON_TOOL}`] };
    if (call.invalid) return { ok: false, errors: [call.invalid] };
    value = call.arguments;
  } else {
    const parsed = parseModelJson(res.text);
    if (!parsed.ok) return { ok: false, errors: [parsed.error] };
    value = parsed.value;
  }
  if (!schema) return { ok: true, value };
  const v = validateJsonSchema(value, schema);
  return v.ok ? { ok: true, value: v.value } : { ok: false, errors: v.errors };
}

function rawAnswer(res: CallResult, mode: Mode): string {
  if (mode !== "tool") return res.text;
  const call = res.toolCalls.find((c) => c.name === JSON_TOOL);
  return call ? JSON.stringify(call.arguments) : res.text;
}

function repairTurn(res: CallResult, mode: Mode, feedback: string): ModelMessage[] {
  if (mode === "tool") {
    const call = res.toolCalls.find((c) => c.name === JSON_TOOL);
    if (call) {
      return [
        {
          role: "assistant",
          content: [{ type: "tool-call", toolCallId: call.id, toolName: call.name, input: call.arguments }],
        },
        {
          role: "tool",
          content: [
            {
              type: "tool-result",
              toolCallId: call.id,
              toolName: call.name,
              output: { type: "text", value: feedback },
            },
          ],
        },
      ];
    }
  }
  return [
    { role: "assistant", content: res.text || "(empty answer)" },
    { role: "user", content: feedback },
  ];
}

function finishText(res: CallResult, r: ResolvedModel): LlmChatResponse {
  return {
    text: res.text,
    ...(res.reasoning ? { reasoning: res.reasoning } : {}),
    toolCalls: res.toolCalls.map(({ invalid: _invalid, ...c }) => c),
    usage: res.usage,
    finishReason: res.finishReason,
    endpoint: r.endpointName,
    model: r.modelId,
  };
}

function finishJson(res: CallResult, value: unknown, r: ResolvedModel): LlmChatResponse {
  return {
    ...finishText({ ...res, toolCalls: res.toolCalls.filter((c) => c.name !== JSON_TOOL) }, r),
    text: JSON.stringify(value),
    json: value,
    finishReason: res.finishReason === "tool_calls" ? "stop" : res.finishReason,
  };
}

// ---------- conversions ----------

function toToolCall(c: {
  toolCallId: string;
  toolName: string;
  input: unknown;
  invalid?: boolean;
  error?: unknown;
}): CallResult["toolCalls"][number] {
  let args: unknown = c.input;
  if (typeof c.input === "string") {
    const raw = c.input;
    try {
      args = JSON.parse(raw);
    } catch {
      return {
        id: c.toolCallId,
        name: c.toolName,
        arguments: {},
        invalid: `arguments are not JSON: ${raw.slice(0, 200)}`,
      };
    }
  }
  if (c.invalid) {
    const msg = c.error instanceof Error ? c.error.message : "invalid tool input";
    return { id: c.toolCallId, name: c.toolName, arguments: isRecord(args) ? args : {}, invalid: msg };
  }
  return { id: c.toolCallId, name: c.toolName, arguments: isRecord(args) ? args : { value: args } };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function toUsage(u: LanguageModelUsage | undefined): Usage {
  const promptTokens = u?.inputTokens ?? 0;
  const completionTokens = u?.outputTokens ?? 0;
  return { promptTokens, completionTokens, totalTokens: u?.totalTokens ?? promptTokens + completionTokens };
}

function addUsage(a: Usage, b: Usage): Usage {
  return {
    promptTokens: a.promptTokens + b.promptTokens,
    completionTokens: a.completionTokens + b.completionTokens,
    totalTokens: a.totalTokens + b.totalTokens,
  };
}

/** OpenAI's spelling, which is what Dify workflows show as `finish_reason`. */
function toFinishReason(reason: string): string {
  switch (reason) {
    case "tool-calls":
      return "tool_calls";
    case "content-filter":
      return "content_filter";
    default:
      return reason;
  }
}

/** Dify `completion_params` → AI SDK call settings; wrong types are an error naming the parameter. */
function completionSettings(endpoint: string, params: Record<string, unknown> | undefined) {
  const out: SseCallSettings = {};
  if (!params) return out;
  const num = (key: string): number | undefined => {
    const v = params[key];
    if (v === undefined || v === null || v === "") return undefined;
    const n = typeof v === "string" ? Number(v) : v;
    if (typeof n !== "number" || !Number.isFinite(n)) {
      throw new LlmError("llm.bad_request", `completion_params.${key} must be a number, got ${JSON.stringify(v)}`, {
        endpoint,
        param: key,
      });
    }
    return n;
  };
  const set = <K extends keyof typeof out>(k: K, v: (typeof out)[K] | undefined) => {
    if (v !== undefined) out[k] = v;
  };
  set("temperature", num("temperature"));
  set("topP", num("top_p"));
  set("topK", num("top_k"));
  set("maxOutputTokens", num("max_tokens") ?? num("max_output_tokens"));
  set("presencePenalty", num("presence_penalty"));
  set("frequencyPenalty", num("frequency_penalty"));
  set("seed", num("seed"));
  const stop = params.stop;
  if (typeof stop === "string" && stop) out.stopSequences = [stop];
  else if (Array.isArray(stop) && stop.every((s) => typeof s === "string") && stop.length) out.stopSequences = stop;
  return out;
}
