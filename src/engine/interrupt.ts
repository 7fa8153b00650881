import { WeftError } from "../ir/errors.js";

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
