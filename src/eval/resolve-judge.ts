/**
 * Asking the resolve judge, under either fidelity: a call that throws (HTTP error, no reply) is retried,
 * and a judge that never answers leaves the case without a verdict ("judge_unknown"), never failed. A
 * judge outage says nothing about the workflow, and upstream has no rule for it: its script stops with
 * the exception (resolve_stage.py:287 is not guarded), so the case is not scored there either.
 */
import { setTimeout as pause } from "node:timers/promises";
import { WeftError } from "../ir/errors.js";
import type { ResolveJudgeFn } from "./metrics/resolve.js";
import type { JudgeRetry, Verdict } from "./resolve-case.js";

export type JudgeAnswer = { ok: true; text: string } | { ok: false; unknown: Verdict };

export async function askJudge(
  judge: ResolveJudgeFn,
  req: Parameters<ResolveJudgeFn>[0],
  retry: JudgeRetry,
): Promise<JudgeAnswer> {
  let last: unknown;
  const attempts = Math.max(1, retry.attempts);
  for (let i = 0; i < attempts; i++) {
    if (i > 0 && retry.delayMs > 0) await pause(retry.delayMs * 2 ** (i - 1));
    try {
      return { ok: true, text: await judge(req) };
    } catch (e) {
      last = e;
    }
  }
  const code = last instanceof WeftError ? last.code : "resolve.judge_failed";
  return {
    ok: false,
    unknown: {
      pass: null,
      stage: "judge_unknown",
      reason: `the judge did not answer in ${attempts} attempts (${code}: ${(last as Error)?.message ?? String(last)}); left out of the rate`,
      errorCode: code,
    },
  };
}
