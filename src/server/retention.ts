import type { AuditStore } from "../store/audit.js";
import type { RetentionPolicy, RunLog } from "../store/runlog.js";

export const DEFAULT_RETENTION_INTERVAL_MS = 10 * 60_000;

export interface Pruner {
  /** Prune once now (also what the timer does); resolves with how many runs went. */
  runOnce(): Promise<number>;
  stop(): void;
}

/**
 * Retention in the background: every `intervalMs` the run log deletes what the policy no longer keeps (never a
 * running or paused run). One pass at a time; a failure is logged and the next pass tries again. The audit log
 * follows the runs' age rule (`maxAgeDays`); a per-app count has no meaning for it.
 */
export function startPruner(
  log: RunLog,
  policy: RetentionPolicy,
  intervalMs = DEFAULT_RETENTION_INTERVAL_MS,
  audit?: AuditStore,
): Pruner {
  let busy: Promise<number> | undefined;
  const pass = async () => {
    const runs = await log.prune(policy);
    if (audit && policy.maxAgeDays !== undefined) await audit.prune(Date.now() - policy.maxAgeDays * 86_400_000);
    return runs;
  };
  const runOnce = () => {
    busy ??= pass().finally(() => {
      busy = undefined;
    });
    return busy;
  };
  const active = policy.maxAgeDays !== undefined || policy.maxRunsPerApp !== undefined;
  const timer = active
    ? setInterval(() => {
        runOnce().catch((e: unknown) =>
          process.stderr.write(`weft server: pruning old runs failed: ${e instanceof Error ? e.message : String(e)}\n`),
        );
      }, intervalMs)
    : undefined;
  timer?.unref();
  return { runOnce, stop: () => clearInterval(timer) };
}
