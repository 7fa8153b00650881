import { setMaxListeners } from "node:events";
import { NodeExecutionError, type PendingPause, RunPause, WeftError } from "../ir/errors.js";
import type { NodeTypes } from "../ir/registry.js";
import type { ExecServices } from "../ir/services.js";
import type { Workflow } from "../ir/workflow.js";
import { nodeTypesFor } from "../nodes/registry.js";
import { MemoryRunStore } from "../store/memory/runs.js";
import type { RunEvent } from "../store/run-events.js";
import type { AttemptRecord, RunRecord, RunStatus, RunStore } from "../store/runs.js";
import { newId } from "../util/ids.js";
import { interruptsRun } from "./interrupt.js";
import type { RunObserver } from "./observer.js";
import { VariablePool } from "./pool.js";
import { type Redactor, redactorFor } from "./redact.js";
import { RedactingRunStore } from "./redacting-store.js";
import { Scheduler } from "./scheduler.js";

/**
 * Default bound on the nodes of one run executing at once. It is meant never to throttle a workflow's own
 * parallelism: Dify's editor allows at most 10 branches per fan-out and 10 parallel iterations, so even
 * nested fan-outs stay below it; it only stops a pathological graph (hundreds of ready nodes) from
 * opening hundreds of model or HTTP calls at once. `weft run --concurrency N` changes it per run.
 */
export const DEFAULT_CONCURRENCY = 64;

export interface RunOptions {
  inputs?: Record<string, unknown>;
  services?: Partial<ExecServices>;
  store?: RunStore;
  runId?: string;
  /** Nodes of this run executing at once; default DEFAULT_CONCURRENCY. */
  concurrency?: number;
  /** Dify's WORKFLOW_MAX_EXECUTION_STEPS is 500; benchmarks raise it. */
  maxSteps?: number;
  maxTimeMs?: number;
  onEvent?: (e: RunEvent) => void;
  signal?: AbortSignal;
  /**
   * Stop between nodes: once aborted no node starts, the nodes running finish and commit, and the run ends
   * `interrupted` (resumable, nothing re-run). What a worker shutting down does to hand its runs back.
   */
  stop?: AbortSignal;
  /** System values: query, files, conversation_id, user_id ... */
  sys?: Record<string, unknown>;
  conversation?: Record<string, unknown>;
  appId?: string;
  /** The app's environment variable values (secrets in clear), over the workflow's declared defaults. */
  env?: RunEnv;
  /** Observability hook (tracing, metrics): wraps the run and each node attempt. */
  observer?: RunObserver;
  /**
   * `false`: the result's `trace` is left empty instead of read back from the store at the end (a store round
   * trip per run, on PostgreSQL a network one); for callers that never look at it (the server reads attempts only
   * when a client asks for them; a queue worker replies with status and outputs only).
   */
  readTrace?: boolean;
  /**
   * The node types the workflow runs against; default the types of the workflow's own nodes, loaded from the
   * registry of every node Weft defines (`nodeTypesFor`: a run loads no other type's module). The engine sits
   * above src/nodes, so the default is an ordinary import; tests add their own types with `.with()`.
   */
  nodeTypes?: NodeTypes;
}

/**
 * What the run's `env` holds beyond the workflow's declarations, and which clear texts are secrets: those are
 * replaced by "[secret]" in everything the run records or reports (store, events, result), never in the pool.
 */
export interface RunEnv {
  values: Record<string, unknown>;
  secrets: string[];
}

export interface RunResult {
  runId: string;
  status: RunStatus;
  outputs: Record<string, unknown>;
  error?: { code: string; message: string; nodeId?: string };
  /** A paused run: the node executions waiting for a human, with their forms. */
  paused?: PendingPause[];
  trace: AttemptRecord[];
  /** Conversation variables after the run (advanced-chat persists them across turns). */
  conversation: Record<string, unknown>;
}

function defaultServices(s: Partial<ExecServices> = {}): ExecServices {
  return { now: () => new Date(), random: Math.random, ...s };
}

function seedPool(wf: Workflow, runId: string, o: RunOptions): VariablePool {
  const pool = new VariablePool();
  const env: Record<string, unknown> = {};
  for (const v of wf.environment_variables) env[v.name] = v.value ?? null;
  Object.assign(env, o.env?.values);
  pool.set("env", env);
  const conv: Record<string, unknown> = {};
  for (const v of wf.conversation_variables)
    conv[v.name] = o.conversation && v.name in o.conversation ? o.conversation[v.name] : (v.value ?? null);
  pool.set("conversation", conv);
  const now = (o.services?.now ?? (() => new Date()))();
  const sys: Record<string, unknown> = {
    files: [],
    user_id: "weft-user",
    app_id: o.appId ?? "weft-app",
    // Dify's workflow id is what its stream's workflow_started names: the app's (one published workflow per app).
    workflow_id: o.appId ?? wf.name,
    workflow_run_id: runId,
    timestamp: Math.floor(now.getTime() / 1000),
    ...(wf.mode === "advanced-chat" ? { query: "", conversation_id: "", dialogue_count: 1 } : {}),
    ...o.sys,
  };
  pool.set("sys", sys);
  return pool;
}

/** Every running node listens on the run's signal; a wide fan-out legitimately passes Node's default of 10. */
function runSignal(signal?: AbortSignal): AbortSignal {
  const s = signal ?? new AbortController().signal;
  setMaxListeners(0, s);
  return s;
}

/** A human-input form is stored and shown to people: a secret its content renders is replaced there too. */
function redactingForms(services: ExecServices, redact: Redactor): ExecServices {
  const inner = services.humanInput;
  if (!inner) return services;
  return { ...services, humanInput: { request: (req) => inner.request(redact(req)) } };
}

/** Secret clear texts of a run: the app's, and any a workflow declares with a value of its own. */
function secretsOf(wf: Workflow, o: RunOptions): string[] {
  const declared = wf.environment_variables
    .filter((v) => v.value_type === "secret" && typeof v.value === "string")
    .map((v) => v.value as string);
  return [...declared, ...(o.env?.secrets ?? [])];
}

function execute(wf: Workflow, runId: string, o: RunOptions, rawStore: RunStore, resumed: boolean): Promise<RunResult> {
  const body = () => executeRun(wf, runId, o, rawStore, resumed);
  return o.observer
    ? o.observer.run(
        { runId, appId: o.appId, workflowName: wf.name, workflow: wf, resumed, secrets: secretsOf(wf, o) },
        body,
      )
    : body();
}

async function executeRun(
  wf: Workflow,
  runId: string,
  o: RunOptions,
  rawStore: RunStore,
  resumed: boolean,
): Promise<RunResult> {
  const redact: Redactor = redactorFor(secretsOf(wf, o));
  const store = new RedactingRunStore(rawStore, redact);
  const emit = o.onEvent;
  // Without a listener there is no event to make: the engine calls `onEvent?.(…)`.
  const onEvent = emit && ((e: RunEvent) => emit(redact(e)));
  const pool = seedPool(wf, runId, o);
  const inputs = o.inputs ?? {};
  const scheduler = new Scheduler({
    runId,
    workflow: wf,
    types: o.nodeTypes ?? (await nodeTypesFor(wf)),
    inputs,
    services: redactingForms(defaultServices(o.services), redact),
    store,
    resumeFrom: resumed ? await store.committed(runId) : undefined,
    concurrency: concurrencyOf(o.concurrency),
    maxSteps: o.maxSteps ?? 500,
    deadline: Date.now() + (o.maxTimeMs ?? 1_200_000),
    onEvent,
    signal: runSignal(o.signal),
    stop: o.stop,
    observer: o.observer,
  });
  onEvent?.({ type: "run_started", runId, resumed });
  let status: RunStatus;
  let outputs: Record<string, unknown> = {};
  let error: RunResult["error"];
  let paused: PendingPause[] | undefined;
  try {
    await scheduler.runTop(pool);
    status = scheduler.exceptions > 0 ? "partial-succeeded" : "succeeded";
    outputs = collectOutputs(wf, scheduler);
  } catch (e) {
    if (e instanceof RunPause) {
      status = "paused";
      paused = e.pending;
      // What the run produced so far (Dify's workflow_paused carries it too).
      outputs = collectOutputs(wf, scheduler);
    } else if (interruptsRun(e)) {
      status = "interrupted";
      error = errorOf(e);
    } else {
      status = "failed";
      // A stop makes the running node fail with its own abort error; the run reports the stop itself.
      error = o.signal?.aborted
        ? { code: "run.cancelled", message: "the run was cancelled", nodeId: errorOf(e).nodeId }
        : errorOf(e);
    }
  }
  outputs = redact(outputs);
  error = redact(error);
  await store.updateRun(runId, { status, outputs, error });
  onEvent?.({
    type: "run_finished",
    runId,
    status,
    outputs,
    error,
    ...(paused ? { paused: paused.map((p) => ({ key: p.key, nodeId: p.nodeId, formId: p.form.formId })) } : {}),
  });
  const conversation = redact((pool.outputsOf("conversation") ?? {}) as Record<string, unknown>);
  const trace = o.readTrace === false ? [] : await store.attempts(runId);
  return { runId, status, outputs, error, paused: redact(paused), trace, conversation };
}

/** Workflow mode: the union of End outputs (later ends win); chat: answers concatenated in completion order. */
function collectOutputs(wf: Workflow, scheduler: Scheduler): Record<string, unknown> {
  if (wf.mode === "advanced-chat") {
    // The reply is what was streamed (Dify accumulates the stream), answers inside loop/iteration bodies
    // included (Dify's loop_contains_answer fixture).
    const answers = scheduler.completed.filter((c) => c.type === "answer");
    return {
      answer: scheduler.stream?.transcript ?? answers.map((a) => String(a.outputs.answer ?? "")).join(""),
      files: answers.flatMap((a) => (Array.isArray(a.outputs.files) ? a.outputs.files : [])),
    };
  }
  const outputs: Record<string, unknown> = {};
  for (const c of scheduler.completed.filter((c) => !c.key.includes("/") && c.type === "end")) {
    Object.assign(outputs, c.outputs);
  }
  return outputs;
}

function errorOf(e: unknown): NonNullable<RunResult["error"]> {
  return e instanceof NodeExecutionError
    ? { code: e.code, message: e.message, nodeId: e.nodeId }
    : e instanceof WeftError
      ? { code: e.code, message: e.message }
      : { code: "run.error", message: e instanceof Error ? e.message : String(e) };
}

/**
 * Record a new run and start it: resolves once the run record is stored (so its id can be handed out and
 * looked up at once), with `done` settling when the run ends.
 */
export async function startRun(
  wf: Workflow,
  o: RunOptions = {},
): Promise<{ runId: string; done: Promise<RunResult>; run: RunRecord }> {
  // A store of this run alone: nobody else reads its records, so the workflow is kept without a copy, the trace
  // is handed back without a second one, and no artifact log is kept.
  const store = o.store ?? new MemoryRunStore({ engineOwned: true });
  const runId = o.runId ?? newId();
  const now = Date.now();
  // The record as stored (secrets replaced), handed back so a caller need not read it again.
  const run = redactorFor(secretsOf(wf, o))({
    id: runId,
    workflow: wf,
    inputs: o.inputs ?? {},
    status: "running" as const,
    createdAt: now,
    updatedAt: now,
    appId: o.appId,
  });
  await store.createRun(run);
  return { runId, done: execute(wf, runId, o, store, false), run };
}

/** Run a workflow to completion. The run (workflow, inputs, commits, trace) is recorded in the store. */
export async function runWorkflow(wf: Workflow, o: RunOptions = {}): Promise<RunResult> {
  return (await startRun(wf, o)).done;
}

/**
 * Continue a run that was interrupted or paused: committed nodes are reused, never executed again; a paused
 * human-input node runs again and finds its form's answer (or its timeout, or still nothing: paused again).
 */
export async function resumeRun(
  runId: string,
  o: Omit<RunOptions, "runId" | "inputs"> & { store: RunStore },
): Promise<RunResult> {
  const rec = await o.store.getRun(runId);
  if (!rec) throw new WeftError("run.not_found", `no run with id ${runId}`);
  if (rec.status === "succeeded" || rec.status === "partial-succeeded") {
    throw new WeftError("run.finished", `run ${runId} already finished (${rec.status}); nothing to resume`);
  }
  await o.store.updateRun(runId, { status: "running" });
  return execute(rec.workflow, runId, { ...o, inputs: rec.inputs }, o.store, true);
}

function concurrencyOf(n: number | undefined): number {
  if (n === undefined) return DEFAULT_CONCURRENCY;
  if (!Number.isInteger(n) || n < 1) {
    throw new WeftError("run.bad_concurrency", `concurrency must be a whole number of at least 1, not ${n}`);
  }
  return n;
}
