import { z } from "zod";
import type { NodeTypeDef } from "../../src/ir/registry.js";
import { nodeCatalogue } from "../../src/nodes/index.js";

/** A node that sleeps `ms` and reports how many sleepers overlapped — for concurrency tests and benches. */
export const sleepStats = { active: 0, peak: 0 };

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
    await new Promise((r) => setTimeout(r, Number(ctx.config.ms)));
    sleepStats.active--;
    return { outputs: { done: Date.now() } };
  },
};

/** Every node type plus `test-sleep`: what runs of workflows using it pass as `nodeTypes`. */
export const withSleepNode = nodeCatalogue.with(sleepNode);
