import pLimit from "p-limit";
import { runWorkflow } from "../../engine/run.js";
import type { ExecServices } from "../../ir/services.js";
import type { Workflow } from "../../ir/workflow.js";
import { createSandbox } from "../../sandbox/index.js";
import { passHatK } from "../metrics/passk.js";
import { CEILINGS } from "./ceilings.js";
import { DEFAULT_CORPUS_DIR, loadDomain } from "./dataset.js";
import type { EnvOptions } from "./env.js";
import { SopBenchError } from "./errors.js";
import { aggregate, type DomainScore, type RowScore, scoreRow } from "./scoring.js";
import { SopBenchToolService } from "./service.js";

export interface WorkflowEvalOptions {
  /** Independent runs of the whole task set (pass^k needs n ≥ k). Default 1. */
  runs?: number;
  /** Score only the first `limit` tasks. */
  limit?: number;
  /** Tasks run at once. Default 8. */
  concurrency?: number;
  corpusDir?: string;
  /** Environment options of each task's fresh tool service (validation mode, clock, seed...). */
  env?: EnvOptions;
  /** Extra services for the engine (an LLM, for workflows that use one). Tools and sandbox are provided. */
  services?: Partial<ExecServices>;
  /** Called after each task run, for progress bars. */
  onProgress?: (done: number, total: number) => void;
  maxSteps?: number;
  /**
   * Run one task somewhere else (e.g. on queue workers); it must give the task a fresh tool service of
   * this domain with `env`. Default: the engine in this process.
   */
  runner?: (job: { workflow: Workflow; inputs: Record<string, unknown>; domain: string; env: EnvOptions }) => Promise<{
    status: string;
    outputs: Record<string, unknown>;
    error?: { code: string; message: string };
  }>;
}

export interface PassAtKPoint {
  k: number;
  strict: number;
  lenient: number;
}

export interface WorkflowEvalResult {
  domain: string;
  /** Runs (trials) per task. */
  n: number;
  tasks: number;
  /** Fraction of strict-correct task rows, averaged over runs. */
  strict: number;
  lenient: number;
  /** τ-bench pass^k for k = 1..n, strict and lenient. pass^1 equals strict/lenient. */
  passAtK: PassAtKPoint[];
  /** Reachable strict-correct rows of this domain (undefined where the labels need judgment). */
  ceiling?: number;
  /** Per run: the domain score with every row (outputs compared, errors). */
  perRun: DomainScore[];
}

/** Runs `workflow` once on one task with a fresh tool service; the error of a failed run scores the row 0. */
async function runTask(
  workflow: Workflow,
  domain: string,
  task: { taskId: string; inputs: Record<string, unknown>; expected: Record<string, unknown> },
  opts: WorkflowEvalOptions,
  sandbox: ExecServices["sandbox"],
): Promise<RowScore> {
  try {
    const r = opts.runner
      ? await opts.runner({ workflow, inputs: { ...task.inputs }, domain, env: opts.env ?? {} })
      : await (() => {
          const tools = new SopBenchToolService(domain, opts.env ?? {});
          return runWorkflow(workflow, {
            inputs: { ...task.inputs },
            services: { now: () => tools.env.now(), ...opts.services, tools, sandbox },
            maxSteps: opts.maxSteps ?? 2000,
          });
        })();
    if (r.status === "failed")
      return scoreRow(
        task.taskId,
        task.expected,
        undefined,
        `${r.error?.code ?? "run.failed"}: ${r.error?.message ?? ""}`,
      );
    return scoreRow(task.taskId, task.expected, r.outputs);
  } catch (e) {
    return scoreRow(task.taskId, task.expected, undefined, (e as Error).message ?? String(e));
  }
}

/**
 * Scores a workflow on a SOP-Bench domain: every labelled task row is run `runs` times on the engine, each
 * run against a fresh SopBenchToolService (so call logs and state never leak between tasks). Strict and
 * lenient are the scoring.ts comparators; pass^k comes from the metrics module.
 */
export async function evaluateWorkflowOnDomain(
  workflow: Workflow,
  domain: string,
  opts: WorkflowEvalOptions = {},
): Promise<WorkflowEvalResult> {
  const runs = opts.runs ?? 1;
  if (!Number.isInteger(runs) || runs < 1)
    throw new SopBenchError("sopbench.invalid_option", `runs must be a positive integer, got ${runs}`, {
      field: "runs",
    });
  const d = loadDomain(domain, opts.corpusDir ?? DEFAULT_CORPUS_DIR);
  const tasks = d.tasks.slice(0, opts.limit ?? d.tasks.length);
  const limit = pLimit(opts.concurrency ?? 8);
  const sandbox = opts.services?.sandbox ?? createSandbox();
  const total = tasks.length * runs;
  let done = 0;
  const perRun: DomainScore[] = [];
  for (let run = 0; run < runs; run++) {
    const rows = await Promise.all(
      tasks.map((t) =>
        limit(async () => {
          const row = await runTask(workflow, d.name, t, opts, sandbox);
          opts.onProgress?.(++done, total);
          return row;
        }),
      ),
    );
    perRun.push(aggregate(d.name, rows));
  }
  const records = (key: "strict" | "lenient") =>
    perRun.flatMap((s, trial) => s.rows.map((r) => ({ taskId: r.taskId, trial, success: r[key] })));
  const strictCurve = passHatK(records("strict")).curve;
  const lenientCurve = passHatK(records("lenient")).curve;
  const mean = (key: "strict" | "lenient") => perRun.reduce((s, r) => s + r[key], 0) / perRun.length;
  const reachable = CEILINGS[d.name]?.reachable;
  return {
    domain: d.name,
    n: runs,
    tasks: tasks.length,
    strict: mean("strict"),
    lenient: mean("lenient"),
    passAtK: strictCurve.map((s, i) => ({ k: i + 1, strict: s, lenient: lenientCurve[i] ?? 0 })),
    ...(reachable !== undefined ? { ceiling: reachable } : {}),
    perRun,
  };
}
