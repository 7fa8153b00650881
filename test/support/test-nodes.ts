import { z } from "zod";
import type { NodeTypeDef } from "../../src/ir/registry.js";
import { nodeCatalogue } from "../../src/nodes/index.js";

/**
 * A node that sleeps `ms` and reports how many sleepers overlapped — for concurrency tests and benches. `peak`
 * counts every run in the process; `peakOf(runId)` one run's own, which a sleeper another test file left running
 * (a timed-out node sleeps on; test files share modules) cannot raise.
 */
export const sleepStats = {
  active: 0,
  peak: 0,
  runs: new Map<string, { active: number; peak: number }>(),
  peakOf(runId: string): number {
    return this.runs.get(runId)?.peak ?? 0;
  },
};

export const sleepNode: NodeTypeDef<{ ms: number }> = {
  type: "test-sleep",
  label: "sleep",
  category: "transform",
  purpose: "test only",
  configSchema: z.object({ ms: z.number().default(10) }).loose(),
  outputs: () => [{ name: "done", type: "number" }],
  inputs: () => [],
  ports: () => ["source"],
  async execute(ctx) {
    sleepStats.active++;
    sleepStats.peak = Math.max(sleepStats.peak, sleepStats.active);
    let run = sleepStats.runs.get(ctx.runId);
    if (!run) {
      run = { active: 0, peak: 0 };
      sleepStats.runs.set(ctx.runId, run);
      // Benches run thousands of runs: only the latest runs' counts are kept.
      if (sleepStats.runs.size > 1_000) sleepStats.runs.delete(sleepStats.runs.keys().next().value as string);
    }
    run.active++;
    run.peak = Math.max(run.peak, run.active);
    await new Promise((r) => setTimeout(r, Number(ctx.config.ms)));
    run.active--;
    sleepStats.active--;
    return { outputs: { done: Date.now() } };
  },
};

/** Every node type plus `test-sleep`: what runs of workflows using it pass as `nodeTypes`. */
export const withSleepNode = nodeCatalogue.with(sleepNode);
