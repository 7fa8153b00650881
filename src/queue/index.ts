import { DelayedError, type Job, Queue, QueueEvents, WaitingError, Worker } from "bullmq";
import { StoredHumanInput } from "../engine/human-input.js";
import { interruptsRun } from "../engine/interrupt.js";
import type { RunObserver } from "../engine/observer.js";
import { type RunEnv, type RunResult, resumeRun, startRun } from "../engine/run.js";
import { WeftError } from "../ir/errors.js";
import type { ExecServices, KnowledgeService } from "../ir/services.js";
import type { Workflow } from "../ir/workflow.js";
import type { TraceCarrier } from "../observability/index.js";
import { AppEnv } from "../secrets/app-env.js";
import { KeyProvider, keyFilePath } from "../secrets/key.js";
import { StoreSpecError } from "../store/errors.js";
import type { FormStore } from "../store/forms.js";
import type { KnowledgeStore } from "../store/knowledge.js";
import { openStores, parseStoreSpec } from "../store/open.js";
import type { RunEvent } from "../store/run-events.js";
import type { RunStore } from "../store/runs.js";
import { newId } from "../util/ids.js";
import { type StopReport, stopWorker, workerErrorLog } from "./shutdown.js";
import { WorkflowMemo } from "./workflow-memo.js";

export const QUEUE_NAME = "weft-runs";

/** Workers and submitters must meet in one database; an in-process store is private to its process. */
function requireSharedStore(db: string): void {
  if (parseStoreSpec(db).kind === "memory")
    throw new StoreSpecError(
      "store.not_shared",
      `queued runs need a run store every worker shares; "${db}" lives inside one process. Use postgres://… (workers on any machine) or a SQLite file (workers on this machine).`,
      { spec: db },
    );
}

export interface QueueConnection {
  /** redis://host:port — defaults to WEFT_REDIS_URL or redis://127.0.0.1:6379. */
  redisUrl?: string;
}

export interface RunJob {
  runId: string;
  /** The app the run belongs to (runs of published apps: scheduled runs), so its log lists it. */
  appId?: string;
  /** Absent on resume jobs: the run record holds the workflow. */
  workflow?: Workflow;
  /** Continue a stored run (answered or timed-out human input); the job never starts a new one. */
  resume?: boolean;
  inputs?: Record<string, unknown>;
  sys?: Record<string, unknown>;
  /** A tool environment built fresh for this run (benchmarks need per-task state), by the worker's `servicesFor`. */
  toolEnv?: { kind: string; domain: string; options?: Record<string, unknown> };
  /** The submitter's trace context (W3C traceparent): the worker's run span continues that trace. */
  trace?: TraceCarrier;
  /**
   * `false`: nobody follows this run's events, so the worker publishes none. Each published event is a Redis
   * script call and a stream entry (about ten a run), most of a queued run's overhead; only `enqueueRun` and
   * `enqueueResume` listen. Absent (jobs of older submitters): published, as before.
   */
  progress?: boolean;
}

export interface RunJobResult {
  runId: string;
  status: RunResult["status"];
  outputs: Record<string, unknown>;
  error?: RunResult["error"];
  /** A paused run: the node executions waiting for a human. */
  paused?: RunResult["paused"];
  /** Which worker finished the run, and whether it continued a run another worker had started. */
  worker: string;
  resumed: boolean;
}

function connection(c: QueueConnection) {
  const url = new URL(c.redisUrl ?? process.env.WEFT_REDIS_URL ?? "redis://127.0.0.1:6379");
  return {
    host: url.hostname,
    port: Number(url.port || 6379),
    password: url.password || undefined,
    maxRetriesPerRequest: null,
  };
}

/** Put a run on the queue; `weft worker` processes pick it up. */
export async function submitRun(
  job: Omit<RunJob, "runId"> & { runId?: string },
  c: QueueConnection = {},
): Promise<string> {
  const queue = new Queue<RunJob, RunJobResult>(QUEUE_NAME, { connection: connection(c) });
  const runId = job.runId ?? newId();
  try {
    // The job id is the run id, so submitting the same run twice never creates a second job.
    await queue.add(
      "run",
      { progress: false, ...job, runId },
      {
        jobId: runId,
        removeOnComplete: 10_000,
        removeOnFail: 10_000,
        attempts: 3,
        backoff: { type: "fixed", delay: 200 },
      },
    );
  } finally {
    await queue.close();
  }
  return runId;
}

/** Put many runs on the queue in one round trip (evaluation suites submit thousands). */
export async function submitRuns(
  jobs: Array<Omit<RunJob, "runId"> & { runId?: string }>,
  c: QueueConnection = {},
): Promise<string[]> {
  const queue = new Queue<RunJob, RunJobResult>(QUEUE_NAME, { connection: connection(c) });
  try {
    const withIds = jobs.map((j) => ({ progress: false, ...j, runId: j.runId ?? newId() }));
    await queue.addBulk(
      withIds.map((j) => ({
        name: "run",
        data: j,
        opts: {
          jobId: j.runId,
          removeOnComplete: 10_000,
          removeOnFail: 10_000,
          attempts: 3,
          backoff: { type: "fixed" as const, delay: 200 },
        },
      })),
    );
    return withIds.map((j) => j.runId);
  } finally {
    await queue.close();
  }
}

/**
 * Submit runs and wait for each one's result; one QueueEvents listener serves every run, so an
 * evaluation can keep thousands in flight.
 */
export async function createQueueRunner(c: QueueConnection = {}) {
  const queue = new Queue<RunJob, RunJobResult>(QUEUE_NAME, { connection: connection(c) });
  const events = new QueueEvents(QUEUE_NAME, { connection: connection(c) });
  await events.waitUntilReady();
  return {
    async run(job: Omit<RunJob, "runId">): Promise<RunJobResult> {
      const runId = newId();
      // Waits for the result only (no progress listener), so the worker need not publish events.
      const j = await queue.add(
        "run",
        { progress: false, ...job, runId },
        { jobId: runId, removeOnComplete: 10_000, removeOnFail: 10_000, attempts: 3 },
      );
      return (await j.waitUntilFinished(events)) as RunJobResult;
    },
    async close(): Promise<void> {
      await queue.close();
      await events.close();
    },
  };
}

/** Enqueue and wait: progress events are streamed back from whichever worker runs it. */
export async function enqueueRun(
  workflow: Workflow,
  inputs: Record<string, unknown>,
  o: QueueConnection & {
    db: string;
    onEvent?: (e: RunEvent) => void;
    sys?: Record<string, unknown>;
    runId?: string;
    trace?: TraceCarrier;
  },
): Promise<RunResult> {
  const runId = o.runId ?? newId();
  return enqueueAndWait("run", { runId, workflow, inputs, sys: o.sys, trace: o.trace }, runId, o);
}

/** Put a resume of a stored run on the queue (any worker takes it) and wait for where it ends. */
export async function enqueueResume(
  runId: string,
  o: QueueConnection & { db: string; onEvent?: (e: RunEvent) => void; trace?: TraceCarrier },
): Promise<RunResult> {
  // A finished job keeps its id for a while, so every resume is a job of its own.
  return enqueueAndWait("resume", { runId, resume: true, trace: o.trace }, `${runId}-resume-${newId()}`, o);
}

async function enqueueAndWait(
  name: string,
  data: RunJob,
  jobId: string,
  o: QueueConnection & { db: string; onEvent?: (e: RunEvent) => void },
): Promise<RunResult> {
  requireSharedStore(o.db);
  const events = new QueueEvents(QUEUE_NAME, { connection: connection(o) });
  await events.waitUntilReady();
  const queue = new Queue<RunJob, RunJobResult>(QUEUE_NAME, { connection: connection(o) });
  try {
    const onProgress = ({ jobId: id, data: ev }: { jobId: string; data: unknown }) => {
      if (id === jobId && ev && typeof ev === "object") o.onEvent?.(ev as RunEvent);
    };
    events.on("progress", onProgress);
    const job = await queue.add(name, data, { jobId, removeOnComplete: 10_000, removeOnFail: 10_000, attempts: 3 });
    const res = (await job.waitUntilFinished(events)) as RunJobResult;
    const stores = await openStores(o.db);
    const trace = await stores.runs.attempts(data.runId).finally(() => stores.close());
    return {
      runId: data.runId,
      status: res.status,
      outputs: res.outputs,
      error: res.error,
      paused: res.paused,
      trace,
      conversation: {},
    };
  } finally {
    await queue.close();
    await events.close();
  }
}

export interface WorkerOptions extends QueueConnection {
  /** Database specifier of the run store every worker shares (see `openStores`). */
  db: string;
  concurrency?: number;
  name?: string;
  services?: Partial<ExecServices>;
  /** Services one job needs besides the worker's (a benchmark task's own tool environment, see `toolEnv`). */
  servicesFor?: (job: RunJob) => Promise<Partial<ExecServices>>;
  /** How long a job's lock lives without renewal before another worker may take it over (ms). */
  lockDurationMs?: number;
  onEvent?: (e: RunEvent) => void;
  /** Where the worker reports trouble it survives (Redis unreachable …); one line each, repeats held back. */
  log?: (line: string) => void;
  /** The secret key file (weft.config.json `secretKeyFile`); default beside the database, as `weft serve`. */
  secretKeyFile?: string;
  /** Observability hook (tracing, metrics, logs) for every run segment the worker runs. */
  observer?: RunObserver;
  /** Runs a job inside the trace its submitter carried (tracing on); without it jobs run as they are. */
  continueTrace?: <T>(carrier: TraceCarrier | undefined, fn: () => Promise<T>) => Promise<T>;
  /** How long each job waited on the queue before this worker took it (ms), for the queue-wait metric. */
  onJobTaken?: (job: { name: string; waitedMs: number }) => void;
  /**
   * Knowledge bases served from the shared database's knowledge store (the CLI builds them with its config),
   * so a queued RAG app retrieves from the same bases `weft serve` on that database manages.
   */
  knowledge?: (store: KnowledgeStore) => KnowledgeService;
}

// A run whose database was unreachable waits this long before another try, for up to this many starts of its
// job (about ten minutes), before the job fails as any other.
const STORE_WAIT_MS = 5_000;
const STORE_WAIT_STARTS = 120;

export interface StartedWorker {
  worker: Worker<RunJob, RunJobResult>;
  /**
   * Stop promptly, also with Redis or the database gone: take no new job, let running nodes finish (at
   * most `graceMs`), hand every run back to the queue for another worker to resume from its commits.
   */
  stop(o?: { graceMs?: number }): Promise<StopReport>;
  /** `stop()` with the default grace. */
  close(): Promise<void>;
}

/**
 * A worker process: runs queued workflows on the engine against the shared run store. A job whose
 * worker died (lock expired) is taken by another worker, which resumes the run from its committed
 * nodes, so no node output is lost or committed twice.
 */
export async function startWorker(o: WorkerOptions): Promise<StartedWorker> {
  requireSharedStore(o.db);
  const stores = await openStores(o.db);
  const store = stores.runs;
  // An app's runs see its variables and secrets here exactly as on `weft serve` (same database, same key).
  const appEnv = new AppEnv(stores.env, stores.apps, new KeyProvider(keyFilePath(o.db, o.secretKeyFile)));
  const envOf = async (appId: string | undefined) => (appId ? appEnv.forRun(appId) : undefined);
  const name = o.name ?? `worker-${process.pid}`;
  if (o.knowledge) o = { ...o, services: { ...o.services, knowledge: o.knowledge(stores.knowledge) } };
  // Timeouts of paused runs are delayed resume jobs: no worker waits for them.
  const timeouts = new Queue<RunJob, RunJobResult>(QUEUE_NAME, { connection: connection(o) });
  // Aborted when the worker stops: runs end between nodes, interrupted, and go back to the queue.
  const stopping = new AbortController();
  const active = new Set<Promise<unknown>>();
  // Jobs of the same workflow run on one object, so what the engine derives from it is derived once.
  const workflows = new WorkflowMemo();
  const handBack = async (job: Job<RunJob, RunJobResult>, token?: string): Promise<never> => {
    await job.moveToWait(token);
    throw new WaitingError();
  };
  const later = async (job: Job<RunJob, RunJobResult>, token?: string): Promise<never> => {
    await job.moveToDelayed(Date.now() + STORE_WAIT_MS, token);
    throw new DelayedError();
  };
  const runJob = async (job: Job<RunJob, RunJobResult>): Promise<RunJobResult> => {
    const onEvent = (e: RunEvent) => {
      o.onEvent?.(e);
      if (job.data.progress !== false && e.type !== "text_chunk")
        void job.updateProgress(e as unknown as object).catch(() => {});
    };
    // A delayed job (a form's timeout) waits from when it was due, not from when it was put on the queue.
    const due = job.timestamp + (job.opts.delay ?? 0);
    o.onJobTaken?.({ name: job.name, waitedMs: Math.max(0, (job.processedOn ?? Date.now()) - due) });
    const services = await jobServices(job.data, o, stores.forms);
    // Taken for the first time (no worker activated it before): see processJob.
    const firstStart = job.attemptsStarted === 1;
    const data = job.data.workflow ? { ...job.data, workflow: workflows.same(job.data.workflow) } : job.data;
    const execute = () =>
      processJob(data, {
        store,
        services,
        onEvent,
        name,
        stop: stopping.signal,
        envOf,
        observer: o.observer,
        firstStart,
      });
    const result = await (o.continueTrace ? o.continueTrace(job.data.trace, execute) : execute());
    await scheduleTimeouts(timeouts, result);
    return result;
  };
  const worker = new Worker<RunJob, RunJobResult>(
    QUEUE_NAME,
    async (job, token) => {
      if (stopping.signal.aborted) return handBack(job, token);
      const running = runJob(job);
      active.add(running);
      let result: RunJobResult;
      try {
        result = await running.finally(() => active.delete(running));
      } catch (e) {
        // The database went away under the run: try again later, without spending one of the job's attempts.
        if (interruptsRun(e) && !stopping.signal.aborted && job.attemptsStarted < STORE_WAIT_STARTS)
          return later(job, token);
        throw e;
      }
      if (result.status !== "interrupted") return result;
      if (stopping.signal.aborted) return handBack(job, token);
      if (job.attemptsStarted < STORE_WAIT_STARTS) return later(job, token);
      throw new Error(`run ${result.runId} was interrupted ${STORE_WAIT_STARTS} times: ${result.error?.message}`);
    },
    {
      connection: connection(o),
      concurrency: o.concurrency ?? 4,
      lockDuration: o.lockDurationMs ?? 30_000,
      stalledInterval: Math.max(500, Math.floor((o.lockDurationMs ?? 30_000) / 2)),
      maxStalledCount: 5,
    },
  );
  // One reporter for both connections, so an outage is one line, not a stack trace per reconnect of each.
  const onError = workerErrorLog(name, o.log ?? ((line) => process.stderr.write(`${line}\n`)));
  worker.on("error", onError);
  timeouts.on("error", onError);
  const stop = async (so: { graceMs?: number } = {}) => {
    const report = await stopWorker({ name, worker, stopping, active, stores, graceMs: so.graceMs ?? 10_000 });
    // Bounded: with Redis gone a close would wait for a connection that never comes back.
    await Promise.race([timeouts.close().catch(() => {}), new Promise((r) => setTimeout(r, 1_000).unref())]);
    return report;
  };
  return {
    worker,
    stop,
    close: async () => {
      await stop();
    },
  };
}

/** The worker's services for one job: its human-input forms live in the shared database. */
async function jobServices(data: RunJob, o: WorkerOptions, forms: FormStore): Promise<Partial<ExecServices>> {
  return { ...o.services, humanInput: new StoredHumanInput(forms), ...(await o.servicesFor?.(data)) };
}

const FINISHED = new Set(["succeeded", "partial-succeeded", "failed"]);

/**
 * Run, resume or take over one run. A job whose worker died (lock expired) is retried by BullMQ and resumes
 * the run from its commits; a resume job continues a paused run once answered, or once its timeout is due.
 *
 * A new run's job taken for the first time writes the run's record at once instead of first asking whether it
 * exists (a database round trip per run): it almost never does, and when it does (a run id submitted again
 * after its job was removed, a tick dispatched again) the record's insert fails on the existing id, and only
 * then is the stored run read and dealt with as below. A job taken again (a takeover, a retry, handed back)
 * always reads the stored run first.
 */
async function processJob(
  data: RunJob,
  o: {
    store: RunStore;
    services: Partial<ExecServices>;
    onEvent: (e: RunEvent) => void;
    name: string;
    stop: AbortSignal;
    /** The app's variables and secrets (resumed runs: the app of the stored run). */
    envOf: (appId: string | undefined) => Promise<RunEnv | undefined>;
    observer?: RunObserver;
    /** No worker took this job before (BullMQ counts every activation). */
    firstStart?: boolean;
  },
): Promise<RunJobResult> {
  const { runId } = data;
  const reply = (r: Pick<RunResult, "status" | "outputs" | "error" | "paused">, resumed: boolean): RunJobResult => ({
    runId,
    status: r.status,
    outputs: r.outputs ?? {},
    error: r.error,
    ...(r.paused ? { paused: r.paused } : {}),
    worker: o.name,
    resumed,
  });
  const optsFor = async (appId: string | undefined) => ({
    store: o.store,
    services: o.services,
    onEvent: o.onEvent,
    maxSteps: 2000,
    stop: o.stop,
    env: await o.envOf(appId),
    observer: o.observer,
    // The job's result carries status and outputs only; the attempts stay in the store for whoever reads them.
    readTrace: false,
  });
  const startNew = async (workflow: Workflow) =>
    startRun(workflow, {
      ...(await optsFor(data.appId)),
      runId,
      appId: data.appId,
      inputs: data.inputs ?? {},
      sys: data.sys,
    });
  if (o.firstStart && !data.resume && data.workflow) {
    let started: Awaited<ReturnType<typeof startRun>> | undefined;
    try {
      started = await startNew(data.workflow);
    } catch (e) {
      // The record's insert failed: on an id that exists (read below), or for a reason that is thrown as before
      // (also when the store cannot be read either: the insert's error is the one to report).
      const exists = await o.store.getRun(runId).then(Boolean, () => false);
      if (!exists) throw e;
    }
    if (started) return reply(await started.done, false);
  }
  const existing = await o.store.getRun(runId);
  // The previous worker finished the run but died before acknowledging the job; or a late timeout.
  if (existing && FINISHED.has(existing.status)) return reply({ ...existing, outputs: existing.outputs ?? {} }, true);
  if (existing) return reply(await resumeRun(runId, await optsFor(existing.appId ?? data.appId)), true);
  if (data.resume || !data.workflow)
    throw new WeftError("run.not_found", `no run with id ${runId} to resume in this database`);
  return reply(await (await startNew(data.workflow)).done, false);
}

/** A paused run's forms that expire get a delayed resume job, which takes the form's timeout path. */
async function scheduleTimeouts(timeouts: Queue<RunJob, RunJobResult>, result: RunJobResult): Promise<void> {
  for (const p of result.paused ?? []) {
    if (p.form.expiresAt === null) continue;
    await timeouts.add(
      "resume",
      { runId: result.runId, resume: true, progress: false },
      {
        jobId: `${result.runId}-timeout-${p.form.formId}`,
        delay: Math.max(0, p.form.expiresAt - Date.now()),
        removeOnComplete: 10_000,
        removeOnFail: 10_000,
      },
    );
  }
}
