/**
 * R11: the pass-stage judge (step_1_4) as upstream's pass_stage.py runs it, for `--fidelity upstream`:
 * system message = prompts/evaluation_pass_system.txt stripped (pass_stage.py:507-510), user message =
 * the template of pass_stage.py:427-434, completion params temperature 0 / max_tokens 8192
 * (bash_pass_stage.sh:4-5), verdict read as pass_stage.py:526-533.
 */
import type { LlmService, ModelRef } from "../../ir/services.js";
import type { PassJudge, PassJudgeInput, PassJudgeVerdict } from "../pass/judge.js";
import { pyRepr, pyStrip } from "./pyrepr.js";
import { parseUpstreamVerdict } from "./resolve-rules.js";

/** bash_pass_stage.sh:4-5 and bash_resolve_stage.sh:4-5: both judges run at temperature 0, max_tokens 8192. */
export const UPSTREAM_JUDGE_PARAMS = { temperature: 0, max_tokens: 8192 } as const;

/**
 * pass_stage.py:254-263 strips each extracted section (and the workflow of '\n', '`', 'j', 's', 'o',
 * 'n' at both ends); pass_stage.py:519 then strips newlines off node_selection and joins its lines
 * with ", " (one ", " per newline, so a blank line gives ", , ").
 */
export function upstreamPassUserMessage(input: PassJudgeInput): string {
  const nodeSelection = pyStrip(pyStrip(input.nodeSelection), "\n").replaceAll("\n", ", ");
  const designPrinciple = pyStrip(input.designPrinciple);
  const workflow = pyStrip(pyStrip(input.workflow), "\n`json");
  // pass_stage.py:427-432: a triple-quoted template, every line indented by four spaces.
  return [
    "",
    `    node_selection: ${nodeSelection}`,
    `    design_principle: ${designPrinciple}`,
    `    workflow: ${workflow}`,
    // pass_stage.py:523 passes the list itself, so str.format prints its repr: ['llm', 'end']
    `    gt_nodes: ${pyRepr([...input.gtNodes], "gt_nodes")}`,
    "    ",
  ].join("\n");
}

export function parseUpstreamPassVerdict(raw: string): PassJudgeVerdict {
  const v = parseUpstreamVerdict(raw);
  return { ok: v.pass, reason: v.reason, raw, diagnostics: [] };
}

/** `system` is upstream's prompt text (src/eval/upstream/prompts.ts). */
export function createUpstreamPassJudge(llm: LlmService, model: ModelRef, system: string): PassJudge {
  const ref: ModelRef = { ...model, completion_params: { ...UPSTREAM_JUDGE_PARAMS } };
  return async (input) => {
    const res = await llm.chat({
      model: ref,
      messages: [
        { role: "system", content: system },
        { role: "user", content: upstreamPassUserMessage(input) },
      ],
    });
    return parseUpstreamPassVerdict(res.text ?? "");
  };
}
