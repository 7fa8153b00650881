import { jsonrepair } from "jsonrepair";
import { z } from "zod";
import { NodeExecutionError, NotConfiguredError, WeftError } from "../ir/errors.js";
import type { ExecContext, InputRef, TextField } from "../ir/registry.js";
import type { ChatContentPart, ChatMessage, FileValue, LlmResponse, LlmService, Usage } from "../ir/services.js";
import { HOSTILE_LIMITS, readHostileJson } from "../util/hostile-json.js";
import { isPlainObject } from "../util/json.js";
import { Sel, templateInputs, textField } from "./common.js";
import { fileList } from "./files.js";

// Pieces shared by the model-calling nodes (llm, question-classifier, parameter-extractor, agent, tool-call).

export const MemorySchema = z
  .object({
    enabled: z.boolean().optional(),
    role_prefix: z
      .object({ user: z.string().default(""), assistant: z.string().default("") })
      .loose()
      .nullish(),
    window: z
      .object({
        enabled: z.boolean().default(false),
        size: z.union([z.number(), z.string()]).nullish(),
      })
      .loose()
      .default({ enabled: false }),
    query_prompt_template: z.string().nullish(),
  })
  .loose();
export type MemoryConfig = z.infer<typeof MemorySchema>;

export const VisionSchema = z
  .object({
    enabled: z.boolean().default(false),
    configs: z
      .object({
        variable_selector: Sel.optional(),
        detail: z.string().optional(),
      })
      .loose()
      .nullish(),
  })
  .loose();
export type VisionConfig = z.infer<typeof VisionSchema>;

/**
 * Where the engine publishes the conversation so far (advanced-chat): a list of `{role, content}`
 * turns, oldest first. Dify keeps this outside the variable pool; Weft reads it from here.
 */
export const HISTORY_SELECTOR = ["sys", "histories"] as const;

export function visionSelector(vision: VisionConfig | null | undefined): string[] | undefined {
  if (!vision?.enabled) return undefined;
  const sel = vision.configs?.variable_selector;
  return sel && sel.length > 0 ? sel : ["sys", "files"];
}

export function visionInputs(
  vision: VisionConfig | null | undefined,
  field = "vision.configs.variable_selector",
): InputRef[] {
  const sel = visionSelector(vision);
  return sel ? [{ selector: sel, field, optional: true }] : [];
}

export function memoryInputs(memory: MemoryConfig | null | undefined): InputRef[] {
  return templateInputs(memory?.query_prompt_template, "memory.query_prompt_template");
}

export function memoryTexts(memory: MemoryConfig | null | undefined): TextField[] {
  return textField("memory.query_prompt_template", memory?.query_prompt_template ?? undefined);
}

export function requireLlm(ctx: ExecContext<unknown>): LlmService {
  const llm = ctx.services.llm;
  if (!llm) {
    throw new NotConfiguredError(
      "llm.not_configured",
      `${ctx.node.type} node "${ctx.node.title || ctx.node.id}" needs a language model, but no LLM provider is configured`,
      { nodeId: ctx.node.id },
    );
  }
  return llm;
}

/** Run one model call, turning provider failures into node errors that name the node. */
export async function callModel(
  ctx: ExecContext<unknown>,
  req: Parameters<LlmService["chat"]>[0],
): Promise<LlmResponse> {
  const llm = requireLlm(ctx);
  try {
    return await llm.chat({ ...req, signal: req.signal ?? ctx.signal });
  } catch (err) {
    if (err instanceof NodeExecutionError || err instanceof NotConfiguredError) throw err;
    const code = err instanceof WeftError ? err.code : "llm.invoke_failed";
    const details = err instanceof WeftError ? err.details : {};
    throw new NodeExecutionError(
      code,
      `${ctx.node.type} node "${ctx.node.title || ctx.node.id}": model call failed: ${(err as Error)?.message ?? String(err)}`,
      ctx.node.id,
      details,
    );
  }
}

export function usageOutput(u: Usage | undefined): Record<string, number> {
  return {
    prompt_tokens: u?.promptTokens ?? 0,
    completion_tokens: u?.completionTokens ?? 0,
    total_tokens: u?.totalTokens ?? 0,
  };
}

export function addUsage(a: Usage, b: Usage | undefined): Usage {
  return {
    promptTokens: a.promptTokens + (b?.promptTokens ?? 0),
    completionTokens: a.completionTokens + (b?.completionTokens ?? 0),
    totalTokens: a.totalTokens + (b?.totalTokens ?? 0),
  };
}

export const ZERO_USAGE: Usage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };

const MEDIA_BY_TYPE: Record<string, string> = {
  image: "image/png",
  audio: "audio/mpeg",
  video: "video/mp4",
  document: "application/pdf",
};

/** A file as a multimodal message part: a URL when it has one, else its bytes from the file store. */
export async function filePart(ctx: ExecContext<unknown>, f: FileValue): Promise<ChatContentPart> {
  const mediaType = f.mime_type || MEDIA_BY_TYPE[f.type] || "application/octet-stream";
  const url = f.remote_url || f.url;
  if (f.transfer_method === "remote_url" && url) return { type: "file", data: url, mediaType, filename: f.filename };
  if (ctx.services.files) {
    const bytes = await ctx.services.files.get(f);
    return { type: "file", data: bytes, mediaType, filename: f.filename };
  }
  if (url) return { type: "file", data: url, mediaType, filename: f.filename };
  throw new NotConfiguredError(
    "files.not_configured",
    `node "${ctx.node.title || ctx.node.id}" sends file "${f.filename}" to the model, but no file store is configured`,
    { nodeId: ctx.node.id },
  );
}

export async function visionParts(
  ctx: ExecContext<unknown>,
  vision: VisionConfig | null | undefined,
): Promise<ChatContentPart[]> {
  const sel = visionSelector(vision);
  if (!sel) return [];
  const r = ctx.read(sel);
  if (!r.found) return [];
  return Promise.all(fileList(r.value).map((f) => filePart(ctx, f)));
}

/** Attach parts to the last user message, or add a user message holding them. */
export function appendToLastUser(messages: ChatMessage[], parts: ChatContentPart[]): void {
  if (parts.length === 0) return;
  const last = messages[messages.length - 1];
  if (last && last.role === "user") {
    const content: ChatContentPart[] =
      typeof last.content === "string" ? (last.content ? [{ type: "text", text: last.content }] : []) : last.content;
    last.content = [...content, ...parts];
  } else {
    messages.push({ role: "user", content: parts });
  }
}

interface HistoryTurn {
  role: "user" | "assistant";
  content: string;
}

/** The memory window: the last `size` turns (a user message and its answer) of the conversation. */
export function readHistory(ctx: ExecContext<unknown>, memory: MemoryConfig | null | undefined): HistoryTurn[] {
  if (!memory) return [];
  const r = ctx.read(HISTORY_SELECTOR);
  if (!r.found || !Array.isArray(r.value)) return [];
  const turns: HistoryTurn[] = [];
  for (const m of r.value) {
    if (!m || typeof m !== "object") continue;
    const role = (m as { role?: unknown }).role;
    const content = (m as { content?: unknown }).content;
    if ((role === "user" || role === "assistant") && typeof content === "string") turns.push({ role, content });
  }
  const size = Number(memory.window?.size);
  if (memory.window?.enabled && Number.isFinite(size) && size > 0) return turns.slice(-Math.floor(size) * 2);
  return turns;
}

export function historyText(turns: HistoryTurn[], memory: MemoryConfig | null | undefined): string {
  const user = memory?.role_prefix?.user || "Human";
  const assistant = memory?.role_prefix?.assistant || "Assistant";
  return turns.map((t) => `${t.role === "user" ? user : assistant}: ${t.content}`).join("\n");
}

/** The text a context value contributes: strings as they are, retrieval results by their content. */
export function contextText(v: unknown): string {
  if (v === null || v === undefined) return "";
  if (typeof v === "string") return v;
  if (Array.isArray(v))
    return v
      .map(contextText)
      .filter((s) => s.length > 0)
      .join("\n");
  if (typeof v === "object") {
    const o = v as Record<string, unknown>;
    if (typeof o.content === "string") return o.content;
    return JSON.stringify(v);
  }
  return String(v);
}

/**
 * First JSON object in model text: code fences and `<think>` blocks dropped, syntax repaired. Model output
 * is hostile input (src/util/hostile-json.ts): text over the size cap, or JSON nested too deep or with
 * `__proto__`/`constructor.prototype` keys, is no JSON object at all, so it never reaches node outputs.
 */
export function parseJsonObject(text: string): Record<string, unknown> | undefined {
  if (text.length > HOSTILE_LIMITS.maxChars) return undefined;
  const cleaned = text.replace(/<think(?:\s[^<>]*)?>[\s\S]*?<\/think>/gi, "");
  const fence = cleaned.match(/```(?:json)?\s*([\s\S]*?)```/i);
  const candidates = [fence?.[1], cleaned];
  for (const c of candidates) {
    if (!c) continue;
    const start = c.indexOf("{");
    if (start < 0) continue;
    const end = c.lastIndexOf("}");
    for (const slice of [c.slice(start, end >= start ? end + 1 : undefined), c.slice(start)]) {
      let repaired: string;
      try {
        repaired = jsonrepair(slice);
      } catch {
        continue;
      }
      const read = readHostileJson(repaired);
      // Refused (too deep, too large, prototype keys): no other reading of the same text is safer.
      if (!read.ok && read.reason !== "invalid") return undefined;
      if (read.ok && isPlainObject(read.value)) return read.value;
    }
  }
  return undefined;
}

/** Gates that rejected the previous attempt say why; the retry tells the model, or it would repeat itself. */
export function gateFeedback(feedback: readonly string[]): string | undefined {
  if (feedback.length === 0) return undefined;
  return `Your previous answer was rejected:\n${feedback.map((f) => `- ${f}`).join("\n")}\nAnswer again, fixing these problems.`;
}

/** Messages for the trace, with file bytes left out. */
export function redactParts(messages: ChatMessage[]): unknown[] {
  return messages.map((m) => ({
    ...m,
    content:
      typeof m.content === "string"
        ? m.content
        : m.content.map((p) =>
            p.type === "file"
              ? {
                  type: "file",
                  mediaType: p.mediaType,
                  filename: p.filename,
                  data: typeof p.data === "string" ? p.data : `<${p.data.byteLength} bytes>`,
                }
              : p,
          ),
  }));
}
