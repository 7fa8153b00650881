/**
 * One case decided by upstream's rules (`--fidelity upstream`), in resolve_stage.py's order: empty
 * outputs (:180), the file check (:196-227), pass with no judge when nothing else is left (:245-249),
 * else the judge with upstream's system prompt and user message (:282-287), read as :288-300.
 */
import { isEmptyOutputs, type ResolveJudgeFn } from "./metrics/resolve.js";
import {
  extensionsOf,
  type JudgeRetry,
  type ResolveCase,
  type ResolveSuiteInstruction,
  type Verdict,
} from "./resolve-case.js";
import { askJudge } from "./resolve-judge.js";
import type { UpstreamPrompt } from "./upstream/prompts.js";
import {
  parseUpstreamVerdict,
  upstreamFileCheck,
  upstreamInputText,
  upstreamJudgedOutputs,
  upstreamOutputText,
  upstreamQueriesText,
  upstreamResolveUserMessage,
} from "./upstream/resolve-rules.js";

export async function decideUpstream(
  ins: ResolveSuiteInstruction,
  c: ResolveCase,
  outputs: Record<string, unknown>,
  inputs: Record<string, unknown>,
  judge: ResolveJudgeFn | undefined,
  prompt: UpstreamPrompt | undefined,
  retry: JudgeRetry,
): Promise<Verdict> {
  // resolve_stage.py:180 — `if not output_dict`
  if (isEmptyOutputs(outputs)) return { pass: false, stage: "empty_outputs", reason: "workflow returned no outputs" };
  const required = ins.required_files;
  const fileExtensions = required ? extensionsOf(outputs, Object.keys(required)) : undefined;
  const withFiles = fileExtensions ? { fileExtensions } : {};
  if (required) {
    const failures = upstreamFileCheck(outputs, required);
    if (failures.length > 0)
      return {
        pass: false,
        stage: "file_check",
        reason: failures.map((f) => `${f.output}: ${f.reason} (expected ${f.expected})`).join("; "),
        fileFailures: failures,
        ...withFiles,
      };
  }
  const judged = upstreamJudgedOutputs(outputs, required);
  // resolve_stage.py:245-249
  if (judged.length === 0)
    return { pass: true, stage: "files_only", reason: "no output apart from the required files", ...withFiles };
  if (!judge || !prompt)
    return {
      pass: null,
      stage: "judge_skipped",
      reason: "the outputs need the LLM judge; no judge model is configured, so this part was skipped",
      ...withFiles,
    };
  const user = upstreamResolveUserMessage({
    queries: upstreamQueriesText(ins.queries),
    inputText: upstreamInputText(inputs),
    outputText: upstreamOutputText(judged),
    // resolve_stage.py:278 — `test_dict.get("ground_truth", "")`
    groundTruth: c.reference ?? "",
  });
  const reply = await askJudge(judge, { system: prompt.system, prompt: user }, retry);
  if (!reply.ok) return { ...reply.unknown, ...withFiles };
  const v = parseUpstreamVerdict(reply.text);
  return { pass: v.pass, stage: "judge", reason: v.reason, ...withFiles };
}
