import { NodeExecutionError } from "../ir/errors.js";

/** How often a node may run again: after an error (Dify's `retry_config`) and after a gate rejection. */
export interface RetryPolicy {
  maxErrorRetries: number;
  intervalMs: number;
  /** Gates get at least two retries, so the feedback they give has a chance to be used. */
  maxGateRetries: number;
}

export function retryPolicy(cfg: Record<string, any>, gateCount: number): RetryPolicy {
  const maxErrorRetries = cfg.retry_config?.retry_enabled ? Math.max(0, Number(cfg.retry_config.max_retries ?? 0)) : 0;
  return {
    maxErrorRetries,
    intervalMs: Number(cfg.retry_config?.retry_interval ?? 0),
    maxGateRetries: gateCount ? Math.max(maxErrorRetries, 2) : 0,
  };
}

/** An error is retried while retries remain, unless the run was cancelled or the gates already gave up. */
export function retriesError(policy: RetryPolicy, retriesSoFar: number, error: unknown, signal: AbortSignal): boolean {
  if (retriesSoFar >= policy.maxErrorRetries || signal.aborted) return false;
  return !(error instanceof NodeExecutionError && error.code === "gate.failed");
}

/** Wait between retries; a cancelled run stops waiting at once. */
export const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener(
      "abort",
      () => {
        clearTimeout(t);
        resolve();
      },
      { once: true },
    );
  });
