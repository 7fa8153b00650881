import type { RunLog, RunQuery } from "../store/runlog.js";
import type { RunStore } from "../store/runs.js";
import { type PriceTable, type RunUsage, sumUsage, usageOfAttempts } from "./cost.js";

/** A stored run's token usage (every segment's attempts) and its cost by the price table; undefined: no such run. */
export async function storedRunUsage(
  runs: RunStore,
  runId: string,
  prices?: PriceTable,
): Promise<RunUsage | undefined> {
  const run = await runs.getRun(runId);
  if (!run) return undefined;
  return usageOfAttempts(run.workflow, await runs.attempts(runId), prices);
}

/** Runs a usage sum reads at most: beyond it the sum says it is partial rather than reading without end. */
export const USAGE_SUM_MAX_RUNS = 10_000;

export interface SummedUsage extends RunUsage {
  /** How many runs were summed. */
  runs: number;
  /** More runs matched than USAGE_SUM_MAX_RUNS: the sum covers the newest ones only. */
  truncated?: boolean;
}

/**
 * The usage of every run a query matches (an app's, within a time range…), summed per model and priced once,
 * page by page through the run log.
 */
export async function summedUsage(
  stores: { runs: RunStore; runLog: RunLog },
  q: Omit<RunQuery, "limit" | "cursor">,
  prices?: PriceTable,
): Promise<SummedUsage> {
  const entries: Array<{ model: string; inputTokens: number; outputTokens: number }> = [];
  let runs = 0;
  let cursor: string | undefined;
  do {
    const page = await stores.runLog.query({ ...q, limit: 100, cursor });
    for (const r of page.runs) {
      const u = await storedRunUsage(stores.runs, r.id);
      if (!u) continue;
      runs++;
      for (const [model, t] of Object.entries(u.byModel))
        entries.push({ model, inputTokens: t.inputTokens, outputTokens: t.outputTokens });
    }
    cursor = page.next;
  } while (cursor && runs < USAGE_SUM_MAX_RUNS);
  return { ...sumUsage(entries, prices), runs, ...(cursor ? { truncated: true } : {}) };
}
