import { Worker, type WorkerOptions } from "node:worker_threads";

/**
 * A few long-lived worker threads, each running one job at a time, with a wall clock per job that
 * the guest cannot stretch: an overrunning or cancelled job's thread is terminated (V8 stops even
 * a tight loop) and replaced. The clock starts when a ready worker receives the job, so thread
 * start-up and module loading are never charged to the job.
 *
 * Worker protocol: the worker posts `{ ready: true }` once loaded, then answers each
 * `{ id, job }` with `{ id, reply }`.
 */

export type PoolOutcome<R> =
  | { kind: "reply"; reply: R }
  | { kind: "timeout" }
  | { kind: "aborted" }
  /** The thread died: out of memory (`error.code === "ERR_WORKER_OUT_OF_MEMORY"`), a crash, or exit. */
  | { kind: "crashed"; error: Error & { code?: string } }
  /** The job could not be sent (structured clone refused it); the worker is kept. */
  | { kind: "unsendable"; error: Error }
  /** No worker became ready within the start-up allowance. */
  | { kind: "unavailable"; error: Error };

export interface WorkerPoolOptions {
  size: number;
  source: string;
  workerOptions: Omit<WorkerOptions, "eval">;
  /** How long a fresh thread may take to post `ready`. */
  startupMs: number;
}

interface Pending<J, R> {
  job: J;
  timeoutMs: number;
  signal?: AbortSignal;
  resolve(o: PoolOutcome<R>): void;
}

interface Slot {
  worker: Worker;
  ready: Promise<void>;
}

export class WorkerPool<J, R> {
  private idle: Slot[] = [];
  private busy = 0;
  private queue: Pending<J, R>[] = [];
  private nextId = 1;
  private closed = false;

  constructor(private readonly o: WorkerPoolOptions) {}

  run(job: J, timeoutMs: number, signal?: AbortSignal): Promise<PoolOutcome<R>> {
    if (signal?.aborted) return Promise.resolve({ kind: "aborted" });
    return new Promise((resolve) => {
      this.queue.push({ job, timeoutMs, signal, resolve });
      this.pump();
    });
  }

  /** Terminates idle threads; running jobs finish on theirs, which are then dropped. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.idle.splice(0).map((s) => s.worker.terminate()));
  }

  private spawn(): Slot {
    const worker = new Worker(this.o.source, { ...this.o.workerOptions, eval: true });
    worker.unref();
    const ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`worker not ready after ${this.o.startupMs} ms`)),
        this.o.startupMs,
      );
      const done = (err?: Error) => {
        clearTimeout(timer);
        worker.off("message", onMessage);
        worker.off("error", done);
        worker.off("exit", onExit);
        err ? reject(err) : resolve();
      };
      const onMessage = (m: { ready?: boolean }) => m?.ready && done();
      const onExit = (code: number) => done(new Error(`worker exited with code ${code} while starting`));
      worker.on("message", onMessage);
      worker.once("error", done);
      worker.once("exit", onExit);
    });
    ready.catch(() => undefined);
    return { worker, ready };
  }

  private pump(): void {
    while (this.queue.length > 0 && (this.idle.length > 0 || this.busy < this.o.size)) {
      const p = this.queue.shift() as Pending<J, R>;
      if (p.signal?.aborted) {
        p.resolve({ kind: "aborted" });
        continue;
      }
      this.busy++;
      const slot = this.idle.pop() ?? this.spawn();
      void this.dispatch(slot, p);
    }
  }

  private async dispatch(slot: Slot, p: Pending<J, R>): Promise<void> {
    const { worker } = slot;
    worker.ref();
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const finish = (o: PoolOutcome<R>, keep: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      p.signal?.removeEventListener("abort", onAbort);
      worker.off("message", onMessage);
      worker.off("error", onError);
      worker.off("exit", onExit);
      this.busy--;
      if (keep && !this.closed) {
        worker.unref();
        this.idle.push(slot);
      } else {
        void worker.terminate();
      }
      p.resolve(o);
      this.pump();
    };
    const id = this.nextId++;
    const onMessage = (m: { id?: number; reply?: R }) =>
      m?.id === id && finish({ kind: "reply", reply: m.reply as R }, true);
    const onError = (error: Error) => finish({ kind: "crashed", error }, false);
    const onExit = (code: number) =>
      finish({ kind: "crashed", error: new Error(`worker exited with code ${code}`) }, false);
    const onAbort = () => finish({ kind: "aborted" }, false);
    p.signal?.addEventListener("abort", onAbort, { once: true });
    worker.on("error", onError);
    worker.on("exit", onExit);
    try {
      await slot.ready;
    } catch (error) {
      return finish({ kind: "unavailable", error: error as Error }, false);
    }
    if (settled) return;
    worker.on("message", onMessage);
    try {
      worker.postMessage({ id, job: p.job });
    } catch (error) {
      return finish({ kind: "unsendable", error: error as Error }, true);
    }
    timer = setTimeout(() => finish({ kind: "timeout" }, false), p.timeoutMs);
  }
}
