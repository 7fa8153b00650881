import type { Worker } from "bullmq";
import type { Stores } from "../store/stores.js";

export interface StopReport {
  /** Runs that were running when the stop began. */
  running: number;
  /** Runs still running when the grace ran out: left to another worker once their lock expires, as after a crash. */
  abandoned: number;
  /** Whether Redis and the database closed within their time (false: the process exits without waiting). */
  closedCleanly: boolean;
}

// Closing talks to Redis and the database; when either is gone their clients retry forever, so closing
// gets this long and no longer.
const CLOSE_TIMEOUT_MS = 3_000;

async function within(ms: number, p: Promise<unknown>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((res) => {
    timer = setTimeout(() => res(false), ms);
  });
  const done = p.then(
    () => true,
    () => true,
  );
  const ok = await Promise.race([done, late]);
  clearTimeout(timer);
  return ok;
}

/**
 * Stop a worker promptly and cleanly, whatever is still reachable: stop fetching jobs, interrupt every run
 * between nodes (the nodes running finish and commit; each run goes back to the queue for another worker to
 * resume), wait at most `graceMs` for that, then close Redis and the database, each bounded in time.
 */
export async function stopWorker(w: {
  name: string;
  worker: Worker;
  stopping: AbortController;
  active: Set<Promise<unknown>>;
  stores: Stores;
  graceMs: number;
}): Promise<StopReport> {
  const running = w.active.size;
  w.stopping.abort(new Error(`worker ${w.name} is stopping`));
  // Not awaited: pausing only has to stop the fetch loop, which it does at once.
  void w.worker.pause(true).catch(() => {});
  const drained = await within(w.graceMs, Promise.allSettled([...w.active]));
  const abandoned = drained ? 0 : w.active.size;
  const workerClosed = await within(CLOSE_TIMEOUT_MS, w.worker.close(!drained));
  const storesClosed = await within(CLOSE_TIMEOUT_MS, w.stores.close());
  return { running, abandoned, closedCleanly: workerClosed && storesClosed };
}

/**
 * The worker's error listener: BullMQ reports every failed reconnect, so one outage would print thousands of
 * stack traces. Each distinct message is reported once a minute, on one line.
 */
export function workerErrorLog(name: string, log: (line: string) => void, everyMs = 60_000): (e: Error) => void {
  const last = new Map<string, number>();
  return (e) => {
    const msg = e?.message ?? String(e);
    const now = Date.now();
    if (now - (last.get(msg) ?? -Infinity) < everyMs) return;
    last.set(msg, now);
    log(
      `worker ${name}: ${msg}${/ECONNREFUSED|ENOTFOUND|ETIMEDOUT|Connection is closed/.test(msg) ? " (Redis unreachable; retrying)" : ""}`,
    );
  };
}
