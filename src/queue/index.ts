import { DelayedError, type Job, Queue, QueueEvents, WaitingError, Worker } from "bullmq";
import { ulid } from "ulid";
import type { RunEvent } from "../engine/events.js";
import { interruptsRun } from "../engine/interrupt.js";
import { type RunResult, resumeRun, runWorkflow } from "../engine/run.js";
import type { ExecServices } from "../ir/services.js";
import type { Workflow } from "../ir/workflow.js";
import { StoreSpecError } from "../store/errors.js";
import { openStores, parseStoreSpec } from "../store/open.js";
import type { RunStore } from "../store/runs.js";
import { type StopReport, stopWorker, workerErrorLog } from "./shutdown.js";

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
  workflow: Workflow;
  inputs: Record<string, unknown>;
  sys?: Record<string, unknown>;
  /** A tool environment the worker builds fresh for this run (benchmarks need per-task state). */
  toolEnv?: { kind: "sopbench"; domain: string; options?: Record<string, unknown> };
}

export interface RunJobResult {
  runId: string;
  status: RunResult["status"];
  outputs: Record<string, unknown>;
  error?: RunResult["error"];
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
  const runId = job.runId ?? ulid();
  try {
    // The job id is the run id, so submitting the same run twice never creates a second job.
    await queue.add(
      "run",
      { ...job, runId },
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
    const withIds = jobs.map((j) => ({ ...j, runId: j.runId ?? ulid() }));
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
      const runId = ulid();
      const j = await queue.add(
        "run",
        { ...job, runId },
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
  o: QueueConnection & { db: string; onEvent?: (e: RunEvent) => void; sys?: Record<string, unknown> },
): Promise<RunResult> {
  requireSharedStore(o.db);
  const events = new QueueEvents(QUEUE_NAME, { connection: connection(o) });
  await events.waitUntilReady();
  const queue = new Queue<RunJob, RunJobResult>(QUEUE_NAME, { connection: connection(o) });
  try {
    const runId = ulid();
    const onProgress = ({ jobId, data }: { jobId: string; data: unknown }) => {
      if (jobId === runId && data && typeof data === "object") o.onEvent?.(data as RunEvent);
    };
    events.on("progress", onProgress);
    const job = await queue.add(
      "run",
      { runId, workflow, inputs, sys: o.sys },
      { jobId: runId, removeOnComplete: 10_000, removeOnFail: 10_000, attempts: 3 },
    );
    const res = (await job.waitUntilFinished(events)) as RunJobResult;
    const stores = await openStores(o.db);
    const trace = await stores.runs.attempts(runId).finally(() => stores.close());
    return { runId, status: res.status, outputs: res.outputs, error: res.error, trace, conversation: {} };
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
  /** How long a job's lock lives without renewal before another worker may take it over (ms). */
  lockDurationMs?: number;
  onEvent?: (e: RunEvent) => void;
  /** Where the worker reports trouble it survives (Redis unreachable …); one line each, repeats held back. */
  log?: (line: string) => void;
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

/** One job: start its run, or resume it (a worker died or handed it back), or report it if it already ended. */
async function runQueuedJob(
  job: Job<RunJob, RunJobResult>,
  o: WorkerOptions & { store: RunStore; name: string; stop: AbortSignal },
): Promise<RunJobResult> {
  const { store, name, stop } = o;
  const { runId, workflow, inputs, sys } = job.data;
  const onEvent = (e: RunEvent) => {
    o.onEvent?.(e);
    if (e.type !== "text_chunk") void job.updateProgress(e as unknown as object).catch(() => {});
  };
  let services = o.services;
  if (job.data.toolEnv?.kind === "sopbench") {
    const { SopBenchToolService } = await import("../eval/sopbench/index.js");
    const tools = new SopBenchToolService(job.data.toolEnv.domain, job.data.toolEnv.options ?? {});
    services = { ...o.services, tools, now: () => tools.env.now() };
  }
  const existing = await store.getRun(runId);
  if (
    existing &&
    (existing.status === "succeeded" || existing.status === "partial-succeeded" || existing.status === "failed")
  ) {
    // The previous worker finished the run but died before acknowledging the job.
    return {
      runId,
      status: existing.status,
      outputs: existing.outputs ?? {},
      error: existing.error,
      worker: name,
      resumed: true,
    };
  }
  const result = existing
    ? await resumeRun(runId, { store, services, onEvent, maxSteps: 2000, stop })
    : await runWorkflow(workflow, { runId, inputs, sys, store, services, onEvent, maxSteps: 2000, stop });
  return {
    runId,
    status: result.status,
    outputs: result.outputs,
    error: result.error,
    worker: name,
    resumed: !!existing,
  };
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
  const name = o.name ?? `worker-${process.pid}`;
  // Aborted when the worker stops: runs end between nodes, interrupted, and go back to the queue.
  const stopping = new AbortController();
  const active = new Set<Promise<unknown>>();
  const handBack = async (job: Job<RunJob, RunJobResult>, token?: string): Promise<never> => {
    await job.moveToWait(token);
    throw new WaitingError();
  };
  const later = async (job: Job<RunJob, RunJobResult>, token?: string): Promise<never> => {
    await job.moveToDelayed(Date.now() + STORE_WAIT_MS, token);
    throw new DelayedError();
  };
  const runJob = (job: Job<RunJob, RunJobResult>) => runQueuedJob(job, { ...o, store, name, stop: stopping.signal });
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
  worker.on("error", workerErrorLog(name, o.log ?? ((line) => process.stderr.write(`${line}\n`))));
  const stop = (so: { graceMs?: number } = {}) =>
    stopWorker({ name, worker, stopping, active, stores, graceMs: so.graceMs ?? 10_000 });
  return {
    worker,
    stop,
    close: async () => {
      await stop();
    },
  };
}
