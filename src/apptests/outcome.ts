/**
 * One run of a case, decided: the run's error, the first failing check (and the node whose value the output
 * is), or the judge's verdict. What the report and the proposal review print as "fails at node 'Y'".
 */

import type { RunResult } from "../engine/run.js";
import {
  buildResolveJudgePrompt,
  nonFileOutputs,
  parseResolveJudge,
  type ResolveJudgeFn,
} from "../eval/metrics/resolve.js";
import { askJudge } from "../eval/resolve-judge.js";
import type { Workflow } from "../ir/workflow.js";
import type { TestCaseRecord } from "../store/app-tests.js";
import { type CheckResult, runCheck } from "./checks.js";

export interface CaseFailure {
  kind: "error" | "status" | "check" | "judge";
  message: string;
  nodeId?: string;
  nodeTitle?: string;
  output?: string;
  expected?: string;
  got?: string;
}

export interface TrialOutcome {
  pass: boolean;
  checks: CheckResult[];
  judge?: { pass: boolean; reason: string };
  failure?: CaseFailure;
}

const title = (wf: Workflow, id: string | undefined) => wf.nodes.find((n) => n.id === id)?.title ?? id;

/** The node whose variable the end (or answer) node outputs under `output`. */
export function producerOf(wf: Workflow, output: string): string | undefined {
  for (const n of wf.nodes) {
    if (n.type !== "end" || n.parentId) continue;
    const outs = (n.config.outputs as Array<{ variable?: string; value_selector?: string[] }> | undefined) ?? [];
    const hit = outs.find((o) => o.variable === output);
    if (hit?.value_selector?.[0]) return hit.value_selector[0];
  }
  return undefined;
}

function judgeInputs(inputs: Record<string, unknown>): Record<string, unknown> {
  return nonFileOutputs(inputs);
}

/** Checks first (all of them, for the report), then the judge when every check passed. */
export async function decideTrial(
  c: TestCaseRecord,
  wf: Workflow,
  run: RunResult,
  judge: ResolveJudgeFn | undefined,
): Promise<TrialOutcome> {
  if (run.status === "failed") {
    const nodeId = run.error?.nodeId;
    const message = `${run.error?.code ?? "run.failed"}: ${run.error?.message ?? "the run failed"}`;
    return { pass: false, checks: [], failure: { kind: "error", message, nodeId, nodeTitle: title(wf, nodeId) } };
  }
  if (run.status !== "succeeded" && run.status !== "partial-succeeded")
    return { pass: false, checks: [], failure: { kind: "status", message: `the run ended ${run.status}` } };
  const checks = c.expect.map((x) => runCheck(x, run.outputs));
  const bad = checks.find((x) => !x.pass);
  if (bad) {
    const nodeId = producerOf(wf, bad.output);
    return {
      pass: false,
      checks,
      failure: {
        kind: "check",
        message: `${bad.output}: expected ${bad.expected}, got ${bad.got}`,
        nodeId,
        nodeTitle: title(wf, nodeId),
        output: bad.output,
        expected: bad.expected,
        got: bad.got,
      },
    };
  }
  if (!c.judge) return { pass: true, checks };
  if (!judge) throw new Error("decideTrial: a case with a rubric needs a judge (checked before the run)");
  const prompt = buildResolveJudgePrompt({
    queries: [c.judge.rubric],
    inputs: judgeInputs(c.inputs),
    outputs: nonFileOutputs(run.outputs),
    referenceAnswer: c.judge.reference,
  });
  const answer = await askJudge(judge, { prompt }, { attempts: 2, delayMs: 0 });
  const verdict = answer.ok ? parseResolveJudge(answer.text) : { pass: false, reason: answer.unknown.reason };
  if (verdict.pass) return { pass: true, checks, judge: { pass: true, reason: verdict.reason } };
  return {
    pass: false,
    checks,
    judge: { pass: false, reason: verdict.reason },
    failure: { kind: "judge", message: `the judge said no: ${verdict.reason || "(no reason given)"}` },
  };
}
