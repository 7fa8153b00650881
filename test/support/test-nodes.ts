import { z } from "zod";
import { getNodeType, registerNodeType } from "../../src/ir/registry.js";

/** A node that sleeps `ms` and reports how many sleepers overlapped — for concurrency tests and benches. */
export const sleepStats = { active: 0, peak: 0 };

export function registerSleepNode(): void {
  if (getNodeType("test-sleep")) return;
  registerNodeType({
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
  });
}
