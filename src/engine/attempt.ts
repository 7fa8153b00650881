import { describeNode } from "../ir/describe.js";
import type {
  BodyRunOptions,
  BodyRunResult,
  ExecContext,
  NodeEvent,
  NodeResult,
  NodeTypeDef,
  NodeTypes,
  ReadResult,
} from "../ir/registry.js";
import type { ExecServices } from "../ir/services.js";
import type { Workflow, WorkflowNode } from "../ir/workflow.js";
import type { RunEvent } from "../store/run-events.js";
import type { AttemptRecord, NodeAttempt } from "../store/runs.js";
import type { RunObserver } from "./observer.js";
import type { VariablePool } from "./pool.js";
import { renderTemplate } from "./render.js";
import { nodeTimeoutMs, withNodeTimeout } from "./timeout.js";

/** What of the run an attempt needs. */
export interface AttemptRun {
  runId: string;
  workflow: Workflow;
  /** The node types the workflow runs against. */
  types: NodeTypes;
  inputs: Record<string, unknown>;
  services: ExecServices;
  /**
   * Where run events go; absent when nobody listens, and then no event object is made at all (called as
   * `onEvent?.(…)`, whose arguments are not evaluated when it is absent).
   */
  onEvent?: (e: RunEvent) => void;
  signal: AbortSignal;
  /** Observability hook (tracing); absent means no cost at all. */
  observer?: RunObserver;
}

/** One node in one frame, ready to be attempted. */
export interface AttemptTarget {
  node: WorkflowNode;
  key: string;
  def: NodeTypeDef<any>;
  cfg: Record<string, any>;
  pool: VariablePool;
  /** Where the node's streamed text goes (it depends on the frame and the answer streams). */
  emitChunk(ev: NodeEvent): void;
  runBody(opts: BodyRunOptions): Promise<BodyRunResult>;
}

export interface AttemptOutcome {
  result?: NodeResult;
  error?: unknown;
  /** Variables the attempt wrote (assigner), to be committed with its outputs. */
  writes: Array<{ selector: string[]; value: unknown }>;
  /** The trace record, status still to be decided by gates and commit. */
  rec: AttemptRecord;
}

/** Resolve the node's declared inputs for the trace. */
function traceInputs(node: WorkflowNode, types: NodeTypes, pool: VariablePool): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const ref of describeNode(node, types).inputs) {
    const r = pool.read(ref.selector);
    out[ref.selector.join(".")] = r.found ? r.value : null;
  }
  return out;
}

/**
 * What an executor sees of its attempt. A class rather than an object literal of closures: its methods live on
 * the prototype, so an attempt allocates one object instead of one per method (a measurable share of a small
 * node's cost). Executors call them as methods (`ctx.read(sel)`); one passed on alone must be bound.
 */
class AttemptContext implements ExecContext<any> {
  readonly workflow: Workflow;
  readonly node: WorkflowNode;
  readonly config: Record<string, any>;
  readonly runId: string;
  readonly key: string;
  readonly runInputs: Record<string, unknown>;
  readonly feedback: string[];
  readonly services: ExecServices;
  readonly signal: AbortSignal;
  /** Variables written (assigner), committed with the outputs. */
  readonly writes: AttemptOutcome["writes"] = [];

  constructor(
    run: AttemptRun,
    private readonly t: AttemptTarget,
    readonly attempt: number,
    feedback: readonly string[],
    signal: AbortSignal,
  ) {
    this.workflow = run.workflow;
    this.node = t.node;
    this.config = t.cfg;
    this.runId = run.runId;
    this.key = t.key;
    this.runInputs = run.inputs;
    this.feedback = [...feedback];
    this.services = run.services;
    this.signal = signal;
  }

  read(sel: readonly string[]): ReadResult {
    return this.t.pool.read(sel);
  }

  render(text: string, style?: "text" | "markdown"): string {
    const pool = this.t.pool;
    return renderTemplate(text, (s) => pool.read(s), style);
  }

  emit(ev: NodeEvent): void {
    if (ev.type === "chunk") this.t.emitChunk(ev);
  }

  runBody(opts: BodyRunOptions): Promise<BodyRunResult> {
    return this.t.runBody(opts);
  }

  writeVariable(sel: readonly string[], value: unknown): void {
    this.t.pool.write(sel, value);
    this.writes.push({ selector: [...sel], value });
  }
}

/**
 * Execute the node once: announce it, run its executor under its time limit with a signal that follows the
 * run's, and capture the result or the error (never thrown: retry and error strategy decide what follows).
 */
export async function runAttempt(
  run: AttemptRun,
  t: AttemptTarget,
  attempt: number,
  feedback: readonly string[],
): Promise<AttemptOutcome> {
  const { node, key, pool } = t;
  const started = Date.now();
  const inputs = traceInputs(node, run.types, pool);
  // Spelled out, not spread from `which`: spreading was the largest share of this function's own time.
  const rec: AttemptRecord = {
    runId: run.runId,
    key,
    nodeId: node.id,
    nodeType: node.type,
    title: node.title,
    attempt,
    status: "succeeded",
    inputs,
    startedAt: started,
    endedAt: started,
  };
  // Who the attempt is, for the listeners and the observer; nothing is made when there are none.
  const which: NodeAttempt | undefined =
    run.onEvent || run.observer
      ? { runId: run.runId, key, nodeId: node.id, nodeType: node.type, title: node.title, attempt }
      : undefined;
  if (which) run.onEvent?.({ type: "node_started", ...which });
  // A node with a time limit gets a signal of its own that the limit aborts (and that follows the run's);
  // without one the run's signal is all it needs, and making one per attempt was a measurable share of a
  // small node's cost.
  const ac = nodeTimeoutMs(t.cfg.timeout_seconds, t.def.timeoutAllowanceMs) ? new AbortController() : undefined;
  const onAbort = ac && (() => ac.abort(run.signal.reason));
  if (onAbort) run.signal.addEventListener("abort", onAbort, { once: true });
  const ctx = new AttemptContext(run, t, attempt, feedback, ac?.signal ?? run.signal);
  let result: NodeResult | undefined;
  let error: unknown;
  try {
    const obs = run.observer;
    result = obs && which ? await obs.attempt(which, () => execute(t, ctx, ac)) : await execute(t, ctx, ac);
  } catch (e) {
    error = e;
  } finally {
    if (onAbort) run.signal.removeEventListener("abort", onAbort);
  }
  rec.endedAt = Date.now();
  return { result, error, writes: ctx.writes, rec };
}

function execute(t: AttemptTarget, ctx: AttemptContext, ac: AbortController | undefined): Promise<NodeResult> {
  return withNodeTimeout(t.def.execute!(ctx), t.cfg.timeout_seconds, t.node.id, ac, t.def.timeoutAllowanceMs);
}
