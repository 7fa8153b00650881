// The workflow of the group-commit kill test: two fan-outs of four logged steps, so several commits finish in
// the same turn of the event loop and share a group.
import { appendFileSync } from "node:fs";
import { z } from "zod";
import type { Workflow } from "../../src/ir/workflow.js";
import { type NodeCatalogue, nodeCatalogue } from "../../src/nodes/index.js";
import { buildWorkflow } from "./build.js";

/** Every node type plus `test-group-step`: appends its node id to `logPath`, waits `ms`, outputs `n` plus its input. */
export function withLoggedNode(logPath: string): NodeCatalogue {
  return nodeCatalogue.with({
    type: "test-group-step",
    label: "logged step",
    category: "transform",
    purpose: "test only",
    configSchema: z.object({ ms: z.number(), n: z.number(), from: z.string().optional() }).loose(),
    outputs: () => [{ name: "value", type: "number" }],
    inputs: () => [],
    ports: () => ["source"],
    async execute(ctx) {
      appendFileSync(logPath, `${ctx.node.id}\n`);
      await new Promise((r) => setTimeout(r, Number(ctx.config.ms)));
      const from = ctx.config.from as string | undefined;
      const prev = from ? ctx.read([from, "value"]) : { found: false, value: 0 };
      return { outputs: { value: (prev.found ? Number(prev.value) : 0) + Number(ctx.config.n) } };
    },
  });
}

export const GROUP_NODES = ["a1", "a2", "a3", "a4", "b1", "b2", "b3", "b4"];

export function groupCommitWorkflow(): Workflow {
  const a = [1, 2, 3, 4].map((i) => ({ id: `a${i}`, type: "test-group-step", ms: 40, n: i }));
  const b = [1, 2, 3, 4].map((i) => ({ id: `b${i}`, type: "test-group-step", ms: 40, n: 10 * i, from: `a${i}` }));
  return buildWorkflow({
    nodes: [
      { id: "start", type: "start", variables: [] },
      ...a,
      ...b,
      {
        id: "end",
        type: "end",
        outputs: [1, 2, 3, 4].map((i) => ({ variable: `v${i}`, value_selector: [`b${i}`, "value"] })),
      },
    ],
    edges: [
      ...[1, 2, 3, 4].map((i) => ["start", `a${i}`] as [string, string]),
      ...[1, 2, 3, 4].map((i) => [`a${i}`, `b${i}`] as [string, string]),
      ...[1, 2, 3, 4].map((i) => [`b${i}`, "end"] as [string, string]),
    ],
  });
}
