import { describeNode } from "../ir/describe.js";
import type {
  BodyRunOptions,
  BodyRunResult,
  ExecContext,
  NodeEvent,
  NodeResult,
  NodeTypeDef,
  NodeTypes,
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
  onEvent: (e: RunEvent) => void;
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
  emitChunk: (ev: NodeEvent) => void;
  runBody: (opts: BodyRunOptions) => Promise<BodyRunResult>;
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
  const writes: AttemptOutcome["writes"] = [];
  const started = Date.now();
  const inputs = traceInputs(node, run.types, pool);
  const which: NodeAttempt = {
    runId: run.runId,
    key,
    nodeId: node.id,
    nodeType: node.type,
    title: node.title,
    attempt,
  };
  run.onEvent({ type: "node_started", ...which });
  // A node with a time limit gets a signal of its own that the limit aborts (and that follows the run's);
  // without one the run's signal is all it needs, and making one per attempt was a measurable share of a
  // small node's cost.
  const ac = nodeTimeoutMs(t.cfg.timeout_seconds, t.def.timeoutAllowanceMs) ? new AbortController() : undefined;
  const onAbort = () => ac?.abort(run.signal.reason);
  if (ac) run.signal.addEventListener("abort", onAbort, { once: true });
  const ctx: ExecContext<any> = {
    workflow: run.workflow,
    node,
    config: t.cfg,
    runId: run.runId,
    key,
    runInputs: run.inputs,
    attempt,
    feedback: [...feedback],
    read: (sel) => pool.read(sel),
    render: (text, style) => renderTemplate(text, (s) => pool.read(s), style),
    emit: (ev) => {
      if (ev.type === "chunk") t.emitChunk(ev);
    },
    writeVariable: (sel, value) => {
      pool.write(sel, value);
      writes.push({ selector: [...sel], value });
    },
    runBody: t.runBody,
    services: run.services,
    signal: ac?.signal ?? run.signal,
  };
  let result: NodeResult | undefined;
  let error: unknown;
  try {
    const exec = () =>
      withNodeTimeout(t.def.execute!(ctx), t.cfg.timeout_seconds, node.id, ac, t.def.timeoutAllowanceMs);
    const obs = run.observer;
    result = obs ? await obs.attempt(which, exec) : await exec();
  } catch (e) {
    error = e;
  } finally {
    if (ac) run.signal.removeEventListener("abort", onAbort);
  }
  const rec: AttemptRecord = {
    ...which,
    status: "succeeded",
    inputs,
    startedAt: started,
    endedAt: Date.now(),
  };
  return { result, error, writes, rec };
}
