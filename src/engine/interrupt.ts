import { WeftError } from "../ir/errors.js";
import { StoreError } from "../store/errors.js";

/**
 * A run stopped on purpose between nodes (a worker shutting down): nothing failed, every node that finished
 * is committed, and the run is left `interrupted` for `resumeRun` to continue. Never a node failure: no
 * retry, error strategy or iteration error mode applies to it.
 */
export class RunInterruptedError extends WeftError {
  constructor(reason = "the run was interrupted") {
    super("run.interrupted", `${reason}; it resumes from its committed nodes`);
  }
}

/** The interruption `stop` asked for, if it did. */
export function interruption(stop: AbortSignal | undefined): RunInterruptedError | undefined {
  if (!stop?.aborted) return undefined;
  const reason = stop.reason instanceof Error ? stop.reason.message : undefined;
  return new RunInterruptedError(reason);
}

/** Store failures that pass: the database was unreachable or overloaded, not wrong about anything. */
const TRANSIENT_STORE = new Set(["store.unavailable", "store.busy", "store.timeout"]);

/**
 * Whether `e` stops the run without anything having failed: an interruption asked for, or the store being
 * unreachable for a while (a commit that did not happen is not a node failure). Such a run ends
 * `interrupted`, and no retry, error strategy or iteration error mode turns it into outputs.
 */
export function interruptsRun(e: unknown): boolean {
  return e instanceof RunInterruptedError || (e instanceof StoreError && TRANSIENT_STORE.has(e.code));
}
