/**
 * Running an app's cases against one workflow (a version, the draft, a draft plus a proposal): every case k
 * times, at most `concurrency` runs at once, each a stored run (its id links to its trace). pass^k is the
 * project's τ-bench estimator (src/eval/metrics/passk.ts) over the k repetitions of every case.
 */
import pLimit from "p-limit";
import { type RunEnv, startRun } from "../engine/run.js";
import { passHatK } from "../eval/metrics/passk.js";
import type { ResolveJudgeFn } from "../eval/metrics/resolve.js";
import type { ExecServices } from "../ir/services.js";
import type { Workflow } from "../ir/workflow.js";
import type { TestCaseRecord } from "../store/app-tests.js";
import type { RunLog } from "../store/runlog.js";
import type { RunStatus, RunStore } from "../store/runs.js";
import type { CheckResult } from "./checks.js";
import { AppTestError } from "./errors.js";
import { type CaseFailure, decideTrial } from "./outcome.js";

/** What was tested: a version, the draft (at a revision), or a draft with a proposal applied. */
export interface TestTarget {
  kind: "version" | "draft" | "proposal";
  version?: number;
  revision?: number;
  proposalId?: string;
}

export interface TrialResult {
  trial: number;
  pass: boolean;
  runId: string;
  status: RunStatus;
  ms: number;
  checks: CheckResult[];
  judge?: { pass: boolean; reason: string };
  failure?: CaseFailure;
}

export interface CaseResult {
  id: string;
  name: string;
  /** Every one of the k runs passed. */
  pass: boolean;
  passes: number;
  trials: TrialResult[];
  /** The first failing run's failure. */
  failure?: CaseFailure;
}

export interface TestReport {
  appId: string;
  target: TestTarget;
  k: number;
  /** Cases whose every run passed / the others. */
  passed: number;
  failed: number;
  /** pass^k over the k runs of every case (τ-bench's estimator); curve[j-1] is pass^j. */
  passHatK: number;
  curve: number[];
  cases: CaseResult[];
  startedAt: number;
  ms: number;
  /** Model calls answered from the replay cache / sent to the model, when the cache was used. */
  modelCalls?: { cached: number; live: number };
}

export interface RunCasesOptions {
  appId: string;
  target: TestTarget;
  services: Partial<ExecServices>;
  /** Where the test runs are stored (their ids link to their traces). */
  store?: RunStore;
  /** The run log: each test run is filed as the app's, source `tests`, so its trace opens in the app's studio. */
  runLog?: RunLog;
  env?: RunEnv;
  judge?: ResolveJudgeFn;
  k?: number;
  concurrency?: number;
  maxTimeMs?: number;
}

function positiveInt(v: number, what: string, max: number): number {
  if (!Number.isInteger(v) || v < 1 || v > max)
    throw new AppTestError("tests.bad_option", `${what} must be an integer from 1 to ${max}, got ${v}`, {
      field: what,
    });
  return v;
}

async function runTrial(wf: Workflow, c: TestCaseRecord, trial: number, o: RunCasesOptions): Promise<TrialResult> {
  const t0 = Date.now();
  // The app's id on the run: its trace link opens in the app (and is scoped to the app's workspace).
  const started = await startRun(wf, {
    inputs: c.inputs,
    sys: c.sys,
    services: o.services,
    store: o.store,
    env: o.env,
    appId: o.appId,
    maxTimeMs: o.maxTimeMs ?? 300_000,
  });
  await o.runLog?.tag(started.runId, {
    source: "tests",
    ...(o.target.version !== undefined ? { version: o.target.version } : {}),
    draft: o.target.kind !== "version",
  });
  const run = await started.done;
  const decided = await decideTrial(c, wf, run, o.judge);
  return { trial, runId: run.runId, status: run.status, ms: Date.now() - t0, ...decided };
}

export async function runCases(wf: Workflow, cases: TestCaseRecord[], o: RunCasesOptions): Promise<TestReport> {
  const k = positiveInt(o.k ?? 1, "k", 100);
  const limit = pLimit(positiveInt(o.concurrency ?? 4, "concurrency", 64));
  const needsJudge = cases.filter((c) => c.judge);
  if (needsJudge.length > 0 && !o.judge)
    throw new AppTestError(
      "tests.no_judge_model",
      `case "${needsJudge[0]!.name}" has a judge rubric and no judge model is set: pass --judge-model NAME (or judge_model in the API body, or WEFT_JUDGE_MODEL)`,
      { case: needsJudge[0]!.name },
    );
  const startedAt = Date.now();
  const results = await Promise.all(
    cases.map(async (c) => {
      const trials = await Promise.all(Array.from({ length: k }, (_, i) => limit(() => runTrial(wf, c, i + 1, o))));
      const passes = trials.filter((t) => t.pass).length;
      return {
        id: c.id,
        name: c.name,
        pass: passes === k,
        passes,
        trials,
        ...(passes < k ? { failure: trials.find((t) => !t.pass)!.failure } : {}),
      } satisfies CaseResult;
    }),
  );
  const metric = passHatK(
    results.flatMap((c) => c.trials.map((t) => ({ taskId: c.id, trial: t.trial, success: t.pass }))),
  );
  const passed = results.filter((c) => c.pass).length;
  return {
    appId: o.appId,
    target: o.target,
    k,
    passed,
    failed: results.length - passed,
    passHatK: metric.curve[k - 1] ?? 0,
    curve: metric.curve,
    cases: results,
    startedAt,
    ms: Date.now() - startedAt,
  };
}
