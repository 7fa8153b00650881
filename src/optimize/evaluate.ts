/**
 * Candidate evaluation: run a workflow on task records, compare its tool calls (from the trace) with
 * the reference log (TC) and its answer with the reference result (ES), reward = (TC + ES) / 2.
 * Runs share one p-limit pool; results are cached by workflow hash (canonical JSON), and concurrent
 * requests for the same candidate share one evaluation.
 */
import { createHash } from "node:crypto";
import pLimit, { type LimitFunction } from "p-limit";
import { runWorkflow } from "../engine/run.js";
import { executionScore, type JudgeFn } from "../eval/metrics/es.js";
import { canonicalJson, type ToolCallRecord, toolCorrectness } from "../eval/metrics/tc.js";
import type { ExecServices } from "../ir/services.js";
import type { Workflow } from "../ir/workflow.js";
import type { TaskRecord } from "../mine/records.js";
import type { AttemptRecord } from "../store/runs.js";

/** Scores an answer against the reference in [0, 1]. */
export type EsScorer = (input: { task: string; output: string; reference: string }) => Promise<number>;

/** ES by the G-Eval judge of src/eval/metrics/es.ts. */
export function judgeScorer(judge: JudgeFn, samples = 1): EsScorer {
  return async (i) => (await executionScore(judge, i, { samples })).es;
}

function tokens(s: string): string[] {
  return s.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** Deterministic ES stand-in for tests and offline runs: token-level F1 between answer and reference. */
export const tokenF1Scorer: EsScorer = async ({ output, reference }) => {
  const a = tokens(output);
  const b = tokens(reference);
  if (a.length === 0 && b.length === 0) return 1;
  if (a.length === 0 || b.length === 0) return 0;
  const counts = new Map<string, number>();
  for (const t of b) counts.set(t, (counts.get(t) ?? 0) + 1);
  let common = 0;
  for (const t of a) {
    const n = counts.get(t) ?? 0;
    if (n > 0) {
      common++;
      counts.set(t, n - 1);
    }
  }
  if (common === 0) return 0;
  const p = common / a.length;
  const r = common / b.length;
  return (2 * p * r) / (p + r);
};

/** Behaviour-relevant content only: titles, canvas data and edge ids do not change a run. */
export function workflowHash(wf: Workflow): string {
  const nodes = [...wf.nodes]
    .sort((a, b) => a.id.localeCompare(b.id))
    .map((n) => ({ id: n.id, type: n.type, parentId: n.parentId ?? null, config: n.config }));
  const edges = wf.edges.map((e) => `${e.source}|${e.sourcePort}|${e.target}`).sort();
  const text = canonicalJson({
    mode: wf.mode,
    nodes,
    edges,
    env: wf.environment_variables,
    conv: wf.conversation_variables,
  });
  return createHash("sha256").update(text).digest("hex").slice(0, 16);
}

export interface TaskEvaluation {
  recordId: string;
  query: string;
  tc: number;
  es: number;
  reward: number;
  status: string;
  output: string;
  predicted: ToolCallRecord[];
  reference: ToolCallRecord[];
  referenceResult: string;
  errors: Array<{ nodeId: string; code: string; message: string }>;
}

export interface CandidateEvaluation {
  hash: string;
  tc: number;
  es: number;
  reward: number;
  tasks: TaskEvaluation[];
  durationMs: number;
}

/** Tool calls a run made, in start order: tool-call nodes and Dify tool nodes. */
export function callsFromTrace(trace: readonly AttemptRecord[]): ToolCallRecord[] {
  return [...trace]
    .filter((a) => a.status === "succeeded" && a.meta)
    .sort((a, b) => a.startedAt - b.startedAt || a.key.localeCompare(b.key))
    .flatMap((a) => {
      const m = a.meta as Record<string, any>;
      if (m.tool_call && typeof m.tool_call.tool === "string")
        return [{ name: m.tool_call.tool, arguments: m.tool_call.arguments ?? {} }];
      if (m.tool && typeof m.tool.tool_name === "string")
        return [{ name: m.tool.tool_name, arguments: m.parameters ?? {} }];
      return [];
    });
}

export interface EvaluatorOptions {
  services: Partial<ExecServices>;
  scorer: EsScorer;
  /** Task runs in flight at once, across all candidates (default 8). */
  concurrency?: number;
  /** Turn the hash cache off (benchmarks). */
  cache?: boolean;
  /** Name of the workflow input that receives the query (default "query"). */
  inputName?: string;
  maxTimeMs?: number;
}

export class Evaluator {
  private readonly limit: LimitFunction;
  private readonly cache = new Map<string, Promise<CandidateEvaluation>>();
  /** Evaluations actually run (cache hits excluded). */
  runs = 0;
  hits = 0;

  constructor(private readonly o: EvaluatorOptions) {
    this.limit = pLimit(Math.max(1, o.concurrency ?? 8));
  }

  evaluate(wf: Workflow, records: readonly TaskRecord[], split = "optimisation"): Promise<CandidateEvaluation> {
    const hash = workflowHash(wf);
    const key = `${hash}:${split}:${records.map((r) => r.id).join(",")}`;
    if (this.o.cache !== false) {
      const hit = this.cache.get(key);
      if (hit) {
        this.hits++;
        return hit;
      }
    }
    const p = this.run(wf, hash, records);
    if (this.o.cache !== false) this.cache.set(key, p);
    return p;
  }

  private async run(wf: Workflow, hash: string, records: readonly TaskRecord[]): Promise<CandidateEvaluation> {
    this.runs++;
    const t0 = Date.now();
    const tasks = await Promise.all(records.map((r) => this.limit(() => this.task(wf, r))));
    const mean = (f: (t: TaskEvaluation) => number) =>
      tasks.length === 0 ? 0 : tasks.reduce((s, t) => s + f(t), 0) / tasks.length;
    return {
      hash,
      tc: mean((t) => t.tc),
      es: mean((t) => t.es),
      reward: mean((t) => t.reward),
      tasks,
      durationMs: Date.now() - t0,
    };
  }

  private async task(wf: Workflow, r: TaskRecord): Promise<TaskEvaluation> {
    const res = await runWorkflow(wf, {
      inputs: { [this.o.inputName ?? "query"]: r.query },
      services: this.o.services,
      maxTimeMs: this.o.maxTimeMs ?? 300_000,
    });
    const predicted = callsFromTrace(res.trace);
    const reference = r.calls.map((c) => ({ name: c.tool, arguments: c.arguments }));
    const tc = toolCorrectness(reference, predicted).tc;
    const answer = res.outputs.answer;
    const output =
      typeof answer === "string" ? answer : Object.keys(res.outputs).length > 0 ? JSON.stringify(res.outputs) : "";
    let es = 0;
    if (res.status !== "failed" || output) {
      try {
        es = await this.o.scorer({ task: r.query, output, reference: r.reference });
      } catch {
        // An unparseable judge reply scores 0 rather than sinking the whole candidate.
        es = 0;
      }
    }
    const errors = res.trace
      .filter((a) => a.error)
      .map((a) => ({ nodeId: a.nodeId, code: a.error!.code, message: a.error!.message }));
    if (res.error && !errors.some((e) => e.message === res.error!.message))
      errors.push({ nodeId: res.error.nodeId ?? "", code: res.error.code, message: res.error.message });
    for (const a of res.trace) {
      const err = (a.meta as any)?.tool_call?.error;
      if (typeof err === "string") errors.push({ nodeId: a.nodeId, code: "tool.error", message: err });
    }
    return {
      recordId: r.id,
      query: r.query,
      tc,
      es,
      reward: (tc + es) / 2,
      status: res.status,
      output,
      predicted,
      reference,
      referenceResult: r.reference,
      errors,
    };
  }
}

function clip(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n)}…` : s;
}

function callsText(calls: readonly ToolCallRecord[]): string {
  return calls.length === 0
    ? "(none)"
    : calls.map((c) => `${c.name}(${clip(canonicalJson(c.arguments ?? {}), 160)})`).join(" → ");
}

/** Execution feedback for the optimiser: the worst tasks first, with traces vs references and errors. */
export function feedbackText(ev: CandidateEvaluation, maxTasks = 4): string {
  const worst = [...ev.tasks].sort((a, b) => a.reward - b.reward).slice(0, maxTasks);
  const lines = [
    `Mean over ${ev.tasks.length} tasks: TC ${ev.tc.toFixed(3)}, ES ${ev.es.toFixed(3)}, reward ${ev.reward.toFixed(3)}.`,
  ];
  for (const t of worst) {
    lines.push(
      `\n## Task ${t.recordId} (TC ${t.tc.toFixed(2)}, ES ${t.es.toFixed(2)}, run ${t.status})`,
      `Query: ${clip(t.query, 300)}`,
      `Reference tool calls: ${callsText(t.reference)}`,
      `Workflow tool calls:  ${callsText(t.predicted)}`,
      `Reference result: ${clip(t.referenceResult, 300)}`,
      `Workflow result:  ${clip(t.output, 300)}`,
    );
    if (t.errors.length > 0)
      lines.push(`Node errors: ${t.errors.map((e) => `${e.nodeId} ${e.code}: ${clip(e.message, 200)}`).join("; ")}`);
  }
  return lines.join("\n");
}
