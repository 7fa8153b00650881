/**
 * The LLM-judged part of step_1_4 (key-node coverage, and consistency of node_selection, design
 * principle and workflow), through any LlmService. The prompt is src/eval/prompts/pass-judge.md: the
 * part above `<!-- user -->` is the system message, the rest the user message.
 *
 * Verdicts are read the way the benchmark reads them: the text after the last `<result>`; it fails if
 * it contains "false". A reply with no `<result>` fails when "false" appears anywhere, and is flagged.
 */
import { readFileSync } from "node:fs";
import type { Diagnostic } from "../../ir/diagnostics.js";
import type { LlmService, ModelRef } from "../../ir/services.js";
import { PassEvalError } from "./errors.js";

export interface PassJudgeInput {
  nodeSelection: string;
  designPrinciple: string;
  workflow: string;
  gtNodes: readonly string[];
}

export interface PassJudgeVerdict {
  ok: boolean;
  reason: string;
  /** Key-node coverage and consistency, when the reply states them separately. */
  rule1?: boolean;
  rule2?: boolean;
  raw: string;
  diagnostics: Diagnostic[];
}

export type PassJudge = (input: PassJudgeInput) => Promise<PassJudgeVerdict>;

let cached: string | undefined;
function template(): string {
  cached ??= readFileSync(new URL("../prompts/pass-judge.md", import.meta.url), "utf8");
  return cached;
}

export function buildPassJudgePrompt(input: PassJudgeInput): { system: string; user: string } {
  const [system, user] = template().split("<!-- user -->");
  if (user === undefined)
    throw new PassEvalError("pass.judge_prompt", "pass-judge.md has no <!-- user --> separator", {});
  const vars: Record<string, string> = {
    // The benchmark shows node_selection on one line.
    node_selection: input.nodeSelection.replace(/\n+/g, ", "),
    design_principle: input.designPrinciple,
    workflow: input.workflow,
    gt_nodes: JSON.stringify(input.gtNodes),
  };
  const fill = (t: string) => t.replace(/\{\{(\w+)\}\}/g, (m, k: string) => vars[k] ?? m);
  return { system: system!.trim(), user: fill(user.trim()) };
}

const boolTag = (text: string, tag: string): boolean | undefined => {
  const m = new RegExp(`<${tag}>\\s*(true|false)\\s*</${tag}>`, "i").exec(text);
  return m ? m[1]!.toLowerCase() === "true" : undefined;
};

export function parsePassJudgeReply(raw: string): PassJudgeVerdict {
  const diagnostics: Diagnostic[] = [];
  const at = raw.toLowerCase().lastIndexOf("<result>");
  let ok: boolean;
  if (at < 0) {
    diagnostics.push({
      code: "pass.judge_no_result",
      severity: "warning",
      message: "the judge reply has no <result> tag; read as the benchmark does (false anywhere fails)",
    });
    ok = !/false/i.test(raw) && /true/i.test(raw);
  } else ok = !/false/i.test(raw.slice(at + "<result>".length));
  const reason = /<reason>([\s\S]*?)<\/reason>/i.exec(raw)?.[1]?.trim() ?? raw.trim().slice(0, 2000);
  return { ok, reason, rule1: boolTag(raw, "rule1"), rule2: boolTag(raw, "rule2"), raw, diagnostics };
}

/** A judge backed by an LlmService: temperature 0, as the benchmark runs its judge. */
export function createLlmPassJudge(llm: LlmService, model: ModelRef): PassJudge {
  const ref: ModelRef = {
    ...model,
    completion_params: { temperature: 0, max_tokens: 8192, ...(model.completion_params ?? {}) },
  };
  return async (input) => {
    const { system, user } = buildPassJudgePrompt(input);
    const res = await llm.chat({
      model: ref,
      messages: [
        { role: "system", content: system },
        { role: "user", content: user },
      ],
    });
    return parsePassJudgeReply(res.text ?? "");
  };
}
