import { readFileSync } from "node:fs";
import { NotConfiguredError, WeftError } from "../ir/errors.js";
import type { ChatMessage, LlmService, ModelRef } from "../ir/services.js";

/** A compile stage failed (model unusable, budget exhausted...); `stage` names where. */
export class CompileError extends WeftError {}

const cache = new Map<string, { system: string; user: string }>();

/**
 * A prompt file of src/compile/prompts: system text, then `<!-- user -->`, then the user template with
 * `{{name}}` holes. Files, not strings in code, so prompts can be read and tuned on their own.
 */
export function prompt(name: string, vars: Record<string, string>): { system: string; user: string } {
  let t = cache.get(name);
  if (!t) {
    const text = readFileSync(new URL(`./prompts/${name}.md`, import.meta.url), "utf8");
    const [system, user] = text.split("<!-- user -->");
    if (user === undefined)
      throw new CompileError("compile.prompt_file", `prompt ${name}.md has no <!-- user --> separator`, {
        prompt: name,
      });
    t = { system: system!.trim(), user: user.trim() };
    cache.set(name, t);
  }
  const fill = (s: string) => s.replace(/\{\{(\w+)\}\}/g, (m, k: string) => vars[k] ?? m);
  return { system: fill(t.system), user: fill(t.user) };
}

export interface JsonCall {
  llm: LlmService;
  model: ModelRef;
  messages: ChatMessage[];
  schema: Record<string, unknown>;
  name: string;
  stage: string;
}

/** One structured-output call; the parsed object, or a CompileError naming the stage. */
export async function chatJson(c: JsonCall): Promise<unknown> {
  let res: Awaited<ReturnType<LlmService["chat"]>> & { json?: unknown };
  try {
    res = await c.llm.chat({ model: c.model, messages: c.messages, json: { schema: c.schema, name: c.name } });
  } catch (e) {
    if (e instanceof NotConfiguredError) throw e;
    const code = e instanceof WeftError ? e.code : "llm.call_failed";
    throw new CompileError(
      "compile.model_call_failed",
      `${c.stage}: the model call failed (${code}): ${(e as Error).message}`,
      { stage: c.stage, cause: code },
    );
  }
  if (res.json !== undefined) return res.json;
  try {
    return JSON.parse(res.text);
  } catch {
    throw new CompileError("compile.model_not_json", `${c.stage}: the model did not answer with JSON`, {
      stage: c.stage,
      text: res.text.slice(0, 300),
    });
  }
}
