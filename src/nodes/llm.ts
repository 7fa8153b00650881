import { z } from "zod";
import type { Diagnostic } from "../ir/diagnostics.js";
import { NodeExecutionError, WeftError } from "../ir/errors.js";
import type { ExecContext, InputRef, TextField } from "../ir/registry.js";
import { replaceTemplateRefs } from "../ir/selector.js";
import type { ChatContentPart, ChatMessage, FileValue } from "../ir/services.js";
import type { OutputDecl } from "../ir/workflow.js";
import { commonFields, defineNode, ModelSchema, Sel, SOURCE, templateInputs, textField } from "./common.js";
import { makeDiagnostic as diag, nodeLabel } from "./diagnostics.js";
import { fileList, isFileValue } from "./files.js";
import { renderJinja } from "./jinja.js";
import {
  appendToLastUser,
  callModel,
  contextText,
  filePart,
  gateFeedback,
  historyText,
  MemorySchema,
  memoryTexts,
  parseJsonObject,
  readHistory,
  redactParts,
  usageOutput,
  VisionSchema,
  visionInputs,
  visionParts,
} from "./model-call.js";

// =============================================================================================
// Reasoning (`<think>`) handling

const THINK_BLOCK = /<think(?:\s[^<>]{0,512})?>([\s\S]*?)<\/think>/gi;
const THINK_TRAILING = /<think(?:\s[^<>]{0,512})?>((?:(?!<\/think>)[\s\S])*)$/i;

/** Split inline `<think>` blocks (and a trailing unclosed one) out of model text. */
export function splitReasoning(text: string): { text: string; reasoning: string } {
  const parts: string[] = [];
  let rest = text.replace(THINK_BLOCK, (_m, inner: string) => {
    parts.push(inner.trim());
    return "";
  });
  const trailing = rest.match(THINK_TRAILING);
  if (trailing) {
    parts.push((trailing[1] ?? "").trim());
    rest = rest.slice(0, trailing.index);
  }
  return { text: rest.replace(/\n{3,}/g, "\n\n").trim(), reasoning: parts.filter(Boolean).join("\n") };
}

/** Streams text with `<think>` blocks removed, safe against tags split across chunks. */
export class ThinkFilter {
  private inside = false;
  private hold = "";
  private seenText = false;

  feed(chunk: string): string {
    let work = this.hold + chunk;
    this.hold = "";
    let out = "";
    while (work.length > 0) {
      if (!this.inside) {
        const open = work.search(/<think(?:\s[^<>]*)?>/i);
        if (open >= 0) {
          out += work.slice(0, open);
          work = work.slice(work.indexOf(">", open) + 1);
          this.inside = true;
          continue;
        }
        // Keep a tail that could still grow into `<think ...>`.
        const lt = work.lastIndexOf("<");
        if (lt >= 0 && work.length - lt < 520 && /^<(t(h(i(n(k(\s[^<>]*)?)?)?)?)?)?$/i.test(work.slice(lt))) {
          out += work.slice(0, lt);
          this.hold = work.slice(lt);
        } else out += work;
        work = "";
      } else {
        const close = work.search(/<\/think>/i);
        if (close >= 0) {
          work = work.slice(close + "</think>".length);
          this.inside = false;
          continue;
        }
        const lt = work.lastIndexOf("<");
        if (lt >= 0 && "</think>".startsWith(work.slice(lt).toLowerCase())) this.hold = work.slice(lt);
        work = "";
      }
    }
    if (!this.seenText) {
      out = out.replace(/^\s+/, "");
      if (out.length > 0) this.seenText = true;
    }
    return out;
  }

  flush(): string {
    const rest = this.inside ? "" : this.hold;
    this.hold = "";
    return rest;
  }
}

// =============================================================================================
// LLM node

/** A prompt's text in either edition; chat messages add an id and a role. */
const promptText = {
  text: z
    .string()
    .nullish()
    .transform((v) => v ?? ""),
  edition_type: z.enum(["basic", "jinja2"]).nullish(),
  jinja2_text: z.string().nullish(),
};

const PromptMessage = z
  .object({ id: z.string().optional(), role: z.enum(["system", "user", "assistant"]).default("user"), ...promptText })
  .loose();

const CompletionPrompt = z.object(promptText).loose();

const Jinja2Variable = z.object({ variable: z.string(), value_selector: Sel.default([]) }).loose();

const LlmConfig = z
  .object({
    ...commonFields,
    model: ModelSchema,
    prompt_template: z.union([z.array(PromptMessage), CompletionPrompt]).default([]),
    prompt_config: z
      .object({ jinja2_variables: z.array(Jinja2Variable).nullish() })
      .loose()
      .nullish(),
    memory: MemorySchema.nullish(),
    context: z
      .object({ enabled: z.boolean().default(false), variable_selector: Sel.nullish() })
      .loose()
      .default({ enabled: false }),
    vision: VisionSchema.default({ enabled: false }),
    structured_output: z
      .object({ schema: z.record(z.string(), z.unknown()).optional() })
      .loose()
      .nullish(),
    structured_output_switch_on: z.boolean().optional(),
    /** Older files: migrated to structured_output_switch_on by Dify. */
    structured_output_enabled: z.boolean().optional(),
    reasoning_format: z.enum(["tagged", "separated"]).default("tagged"),
  })
  .loose();
export type LlmConfig = z.infer<typeof LlmConfig>;

function isJinja(m: { edition_type?: string | null }): boolean {
  return m.edition_type === "jinja2";
}

function promptSource(m: { text: string; edition_type?: string | null; jinja2_text?: string | null }): string {
  return isJinja(m) ? (m.jinja2_text ?? m.text) : m.text;
}

export function structuredOutputOn(c: LlmConfig): boolean {
  return (c.structured_output_switch_on ?? c.structured_output_enabled ?? false) && !!c.structured_output;
}

function llmTexts(c: LlmConfig): TextField[] {
  const out: TextField[] = [];
  if (Array.isArray(c.prompt_template)) {
    c.prompt_template.forEach((m, i) => {
      if (isJinja(m)) out.push(...textField(`prompt_template[${i}].jinja2_text`, m.jinja2_text ?? m.text, "jinja2"));
      else out.push(...textField(`prompt_template[${i}].text`, m.text));
    });
  } else {
    const m = c.prompt_template;
    if (isJinja(m)) out.push(...textField("prompt_template.jinja2_text", m.jinja2_text ?? m.text, "jinja2"));
    else out.push(...textField("prompt_template.text", m.text));
  }
  out.push(...memoryTexts(c.memory));
  return out;
}

function llmInputs(c: LlmConfig): InputRef[] {
  const out: InputRef[] = [];
  for (const t of llmTexts(c)) if (t.kind === "dify") out.push(...templateInputs(t.text, t.field));
  if (c.context.enabled && c.context.variable_selector && c.context.variable_selector.length > 0) {
    out.push({ selector: c.context.variable_selector, field: "context.variable_selector" });
  }
  (c.prompt_config?.jinja2_variables ?? []).forEach((v, i) => {
    if (v.value_selector.length > 0) {
      out.push({
        selector: v.value_selector,
        field: `prompt_config.jinja2_variables[${i}].value_selector`,
        optional: true,
      });
    }
  });
  out.push(...visionInputs(c.vision));
  // Implicit reads of the user query: the memory query message, and `#sys.query#` in completion prompts.
  const completionQuery = !Array.isArray(c.prompt_template) && promptSource(c.prompt_template).includes("#sys.query#");
  if ((c.memory && !c.memory.query_prompt_template && Array.isArray(c.prompt_template)) || completionQuery) {
    out.push({ selector: ["sys", "query"], field: c.memory ? "memory" : "prompt_template.text", optional: true });
  }
  return out;
}

function llmOutputs(c: LlmConfig): OutputDecl[] {
  const out: OutputDecl[] = [
    { name: "text", type: "string" },
    { name: "reasoning_content", type: "string" },
    { name: "usage", type: "object" },
    { name: "finish_reason", type: "string" },
  ];
  if (structuredOutputOn(c)) out.push({ name: "structured_output", type: "object" });
  out.push({ name: "files", type: "array[file]" });
  return out;
}

function llmRules(c: LlmConfig, nodeId: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  const sources = Array.isArray(c.prompt_template) ? c.prompt_template : [c.prompt_template];
  if (sources.every((m) => promptSource(m).trim() === "") && !c.memory) {
    out.push(diag(nodeId, "llm.empty_prompt", "prompt_template", "the prompt is empty: add a system or user message"));
  }
  if (!c.model.name) out.push(diag(nodeId, "llm.model_missing", "model.name", "no model is chosen", "warning"));
  if (structuredOutputOn(c)) {
    const schema = c.structured_output?.schema;
    if (!schema || typeof schema !== "object" || schema.type !== "object") {
      out.push(
        diag(
          nodeId,
          "llm.structured_output_schema",
          "structured_output.schema",
          'structured output is switched on, but its schema is not a JSON Schema with "type": "object"',
        ),
      );
    }
  }
  const usesContext = sources.some((m) => promptSource(m).includes("{{#context#}}"));
  const hasContext = c.context.enabled && (c.context.variable_selector?.length ?? 0) > 0;
  if (usesContext && !hasContext) {
    out.push(
      diag(
        nodeId,
        "llm.context_unset",
        "context",
        "the prompt uses {{#context#}} but no context variable is set",
        "warning",
      ),
    );
  }
  if (hasContext && !usesContext) {
    out.push(
      diag(
        nodeId,
        "llm.context_unused",
        "context",
        "a context variable is set but no prompt uses {{#context#}}",
        "warning",
      ),
    );
  }
  return out;
}

const CONTEXT_PLACEHOLDER = "{{#context#}}";

async function renderJinjaField(
  source: string,
  vars: Record<string, unknown>,
  ctx: ExecContext<unknown>,
  field: string,
): Promise<string> {
  try {
    return await renderJinja(source, vars, { signal: ctx.signal });
  } catch (err) {
    const code = err instanceof WeftError ? err.code : "jinja.render";
    throw new NodeExecutionError(code, `${nodeLabel(ctx.node)}: ${field}: ${(err as Error).message}`, ctx.node.id, {
      field,
    });
  }
}

/**
 * Render a basic-edition template: file values it references become message parts (Dify sends
 * them to the model), everything else is rendered by the engine's template renderer.
 */
async function renderBasic(
  ctx: ExecContext<unknown>,
  text: string,
): Promise<{ text: string; parts: ChatContentPart[] }> {
  const files: FileValue[] = [];
  const withoutFiles = replaceTemplateRefs(text, (sel, raw) => {
    const r = ctx.read(sel);
    const fl = r.found ? fileList(r.value) : [];
    if (fl.length > 0 && (isFileValue(r.value) || (Array.isArray(r.value) && fl.length === r.value.length))) {
      files.push(...fl);
      return "";
    }
    return raw;
  });
  const parts = await Promise.all(files.map((f) => filePart(ctx, f)));
  return { text: ctx.render(withoutFiles), parts };
}

/** Dify §2.10: template messages, then the memory window, then the query message; or one completion prompt. */
export async function buildLlmMessages(ctx: ExecContext<LlmConfig>): Promise<ChatMessage[]> {
  const c = ctx.config;
  let context = "";
  if (c.context.enabled && c.context.variable_selector && c.context.variable_selector.length > 0) {
    const r = ctx.read(c.context.variable_selector);
    context = r.found ? contextText(r.value) : "";
  }
  const jinjaVars: Record<string, unknown> = {};
  for (const v of c.prompt_config?.jinja2_variables ?? []) {
    const r = v.value_selector.length > 0 ? ctx.read(v.value_selector) : { found: false };
    jinjaVars[v.variable] = r.found ? r.value : null;
  }
  const renderOne = async (
    m: { text: string; edition_type?: string | null; jinja2_text?: string | null },
    field: string,
  ): Promise<{ text: string; parts: ChatContentPart[] }> => {
    if (isJinja(m)) {
      const text = await renderJinjaField(m.jinja2_text ?? m.text, { ...jinjaVars, context }, ctx, field);
      return { text: text.split(CONTEXT_PLACEHOLDER).join(context), parts: [] };
    }
    const r = await renderBasic(ctx, m.text);
    return { text: r.text.split(CONTEXT_PLACEHOLDER).join(context), parts: r.parts };
  };
  const history = readHistory(ctx, c.memory);
  const messages: ChatMessage[] = [];

  if (!Array.isArray(c.prompt_template)) {
    const r = await renderOne(c.prompt_template, "prompt_template.text");
    const q = ctx.read(["sys", "query"]);
    const query = q.found && q.value != null ? String(q.value) : "";
    const text = r.text.split("#histories#").join(historyText(history, c.memory)).split("#sys.query#").join(query);
    messages.push({ role: "user", content: r.parts.length ? [{ type: "text", text }, ...r.parts] : text });
  } else {
    for (const [i, m] of c.prompt_template.entries()) {
      const r = await renderOne(m, `prompt_template[${i}]`);
      if (r.text === "" && r.parts.length === 0) continue;
      messages.push({ role: m.role, content: r.parts.length ? [{ type: "text", text: r.text }, ...r.parts] : r.text });
    }
    if (c.memory) {
      for (const t of history) messages.push({ role: t.role, content: t.content });
      let query = "";
      if (c.memory.query_prompt_template) {
        const r = await renderBasic(ctx, c.memory.query_prompt_template);
        query = r.text;
        if (r.parts.length) {
          messages.push({ role: "user", content: [{ type: "text", text: query }, ...r.parts] });
          query = "";
        }
      } else {
        const q = ctx.read(["sys", "query"]);
        query = q.found && q.value != null ? String(q.value) : "";
      }
      if (query.trim() !== "") messages.push({ role: "user", content: query });
    }
  }
  appendToLastUser(messages, await visionParts(ctx, c.vision));
  const empty = messages.every((m) =>
    typeof m.content === "string"
      ? m.content.trim() === ""
      : m.content.every((p) => p.type === "text" && p.text.trim() === ""),
  );
  if (empty) {
    throw new NodeExecutionError(
      "llm.empty_prompt",
      `${nodeLabel(ctx.node)}: the prompt is empty after rendering`,
      ctx.node.id,
      {
        field: "prompt_template",
      },
    );
  }
  const feedback = gateFeedback(ctx.feedback);
  if (feedback) messages.push({ role: "user", content: feedback });
  return messages;
}

export const llmNode = defineNode<LlmConfig>({
  type: "llm",
  label: "LLM",
  category: "llm",
  purpose:
    "Calls a language model with chat messages (or one completion prompt) built from templates; outputs the text, optionally a JSON object matching a schema.",
  notes: [
    "Reference upstream values in prompt text as {{#node_id.var#}}; {{#context#}} inserts the context variable.",
    "Without memory no user query is added automatically: reference {{#sys.query#}} in a user message.",
    "structured_output (a JSON Schema with type object) plus structured_output_switch_on gives a `structured_output` output.",
    "reasoning_format separated moves <think> blocks into reasoning_content; tagged keeps them in text.",
  ],
  configSchema: LlmConfig,
  example: {
    model: { provider: "openai", name: "gpt-4o-mini", mode: "chat", completion_params: { temperature: 0.7 } },
    prompt_template: [
      { role: "system", text: "You are a helpful assistant." },
      { role: "user", text: "{{#start.query#}}" },
    ],
    context: { enabled: false, variable_selector: [] },
    vision: { enabled: false },
  },
  outputs: (c) => llmOutputs(c),
  inputs: (c) => llmInputs(c),
  ports: () => SOURCE,
  texts: (c) => llmTexts(c),
  rules: (c, sctx) => llmRules(c, sctx.node.id),
  async execute(ctx) {
    const c = ctx.config;
    const messages = await buildLlmMessages(ctx);
    const separated = c.reasoning_format === "separated";
    const filter = separated ? new ThinkFilter() : undefined;
    const selector = [ctx.node.id, "text"];
    const wantsJson = structuredOutputOn(c);
    const res = await callModel(ctx, {
      model: c.model,
      messages,
      json: wantsJson ? { schema: c.structured_output?.schema, name: "structured_output" } : undefined,
      onText: (delta) => {
        const text = filter ? filter.feed(delta) : delta;
        if (text) ctx.emit({ type: "chunk", text, selector });
      },
    });
    if (filter) {
      const tail = filter.flush();
      if (tail) ctx.emit({ type: "chunk", text: tail, selector });
    }
    let text = res.text;
    let reasoning = "";
    if (separated) {
      const split = splitReasoning(text);
      text = split.text;
      reasoning = [res.reasoning?.trim(), split.reasoning].filter(Boolean).join("\n");
    } else if (res.reasoning && !/<think[\s>]/i.test(text)) {
      // Tagged keeps the reasoning in the text, where Dify's providers put it.
      text = `<think>\n${res.reasoning.trim()}\n</think>\n\n${text}`;
    }
    const outputs: Record<string, unknown> = {
      text,
      reasoning_content: reasoning,
      usage: usageOutput(res.usage),
      finish_reason: res.finishReason,
      files: [],
    };
    if (wantsJson) {
      const parsed = parseJsonObject(splitReasoning(res.text).text);
      if (!parsed) {
        throw new NodeExecutionError(
          "llm.structured_output_invalid",
          `${nodeLabel(ctx.node)}: the model did not return a JSON object for the structured output`,
          ctx.node.id,
          { text: res.text.slice(0, 500) },
        );
      }
      outputs.structured_output = parsed;
    }
    return { outputs, usage: res.usage, meta: { messages: redactParts(messages) } };
  },
});
