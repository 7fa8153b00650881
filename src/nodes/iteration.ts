import pLimit from "p-limit";
import { z } from "zod";
import { NodeExecutionError, type PendingPause, RunPause } from "../ir/errors.js";
import { arrayOf, normaliseType } from "../ir/types.js";
import { commonFields, defineNode, Sel } from "./common.js";

const IterationConfig = z
  .object({
    ...commonFields,
    start_node_id: z.string().default(""),
    iterator_selector: Sel.default([]),
    output_selector: Sel.default([]),
    output_type: z.string().optional(),
    is_parallel: z.boolean().default(false),
    parallel_nums: z.number().int().min(1).max(100).default(10),
    error_handle_mode: z.enum(["terminated", "continue-on-error", "remove-abnormal-output"]).default("terminated"),
    flatten_output: z.boolean().default(true),
  })
  .loose();
export type IterationConfig = z.infer<typeof IterationConfig>;

/** Dify ≥ 1.9 concatenates per-item lists when every non-null item output is itself a list. */
function flatten(values: unknown[]): unknown[] {
  const nonNull = values.filter((v) => v !== null && v !== undefined);
  if (nonNull.length === 0 || !nonNull.every(Array.isArray)) return values;
  return values.flatMap((v) => (Array.isArray(v) ? v : v === null || v === undefined ? [] : [v]));
}

export const iterationNode = defineNode<IterationConfig>({
  type: "iteration",
  label: "Iteration",
  category: "container",
  purpose:
    "Runs its body once per element of an array (sequentially or in parallel) and collects the body's output_selector value per item, in order.",
  notes: [
    "The body starts at an iteration-start child (start_node_id); children have parentId = the iteration id. No edge joins the iteration and its iteration-start.",
    "Inside the body read {{#<iteration_id>.item#}} and {{#<iteration_id>.index#}}.",
    "error_handle_mode: terminated | continue-on-error (null kept) | remove-abnormal-output (item dropped).",
  ],
  configSchema: IterationConfig,
  example: { iterator_selector: ["code", "items"], output_selector: ["inner_llm", "text"], is_parallel: false },
  container: { startType: "iteration-start" },
  outputs: (c) => [{ name: "output", type: c.output_type ? normaliseType(c.output_type) : "array[any]" }],
  scopeOutputs: () => [
    { name: "item", type: "any" },
    { name: "index", type: "number" },
  ],
  inputs: (c) =>
    c.iterator_selector.length
      ? [{ selector: c.iterator_selector, field: "iterator_selector", expects: "array[any]" as const }]
      : [],
  ports: () => ["source"],
  rules(c, ctx) {
    const out = [];
    if (c.iterator_selector.length === 0) {
      out.push({
        code: "iteration.no_iterator",
        severity: "error" as const,
        nodeId: ctx.node.id,
        field: "iterator_selector",
        message: "iteration has no iterator_selector",
      });
    }
    if (c.output_selector.length === 0) {
      out.push({
        code: "iteration.no_output",
        severity: "error" as const,
        nodeId: ctx.node.id,
        field: "output_selector",
        message: "iteration has no output_selector",
      });
    } else {
      const src = ctx.nodeById(c.output_selector[0]!);
      if (src && src.parentId !== ctx.node.id) {
        out.push({
          code: "iteration.output_outside",
          severity: "error" as const,
          nodeId: ctx.node.id,
          field: "output_selector",
          message: `output_selector must name a node inside the iteration; ${src.id} is not in it`,
        });
      }
    }
    const declared = c.output_type ? normaliseType(c.output_type) : undefined;
    if (declared && !declared.startsWith("array[")) {
      out.push({
        code: "iteration.output_type",
        severity: "warning" as const,
        nodeId: ctx.node.id,
        field: "output_type",
        message: `output_type should be an array type, got ${c.output_type}`,
      });
    }
    return out;
  },
  async execute(ctx) {
    const c = ctx.config;
    const r = ctx.read(c.iterator_selector);
    if (!r.found) {
      throw new NodeExecutionError(
        "iteration.missing_iterator",
        `iterator ${c.iterator_selector.join(".")} does not exist`,
        ctx.node.id,
        { field: "iterator_selector" },
      );
    }
    if (r.value === null || r.value === undefined) return { outputs: { output: [] } };
    if (!Array.isArray(r.value)) {
      throw new NodeExecutionError(
        "iteration.not_array",
        `iterator ${c.iterator_selector.join(".")} is not an array`,
        ctx.node.id,
        { field: "iterator_selector" },
      );
    }
    const items = r.value;
    const results: unknown[] = new Array(items.length).fill(null);
    const failed = new Array<boolean>(items.length).fill(false);
    let firstError: Error | undefined;
    // Items waiting for a human: no new item starts after one (a resume runs the rest, finished ones replay).
    const paused: PendingPause[] = [];
    const limit = pLimit(c.is_parallel ? c.parallel_nums : 1);
    await Promise.all(
      items.map((item, index) =>
        limit(async () => {
          // Terminated mode stops scheduling new items once one failed; in-flight ones finish.
          if (firstError && c.error_handle_mode === "terminated") return;
          if (paused.length > 0) return;
          const body = await ctx.runBody({ scope: { item, index }, sharedPool: false, index });
          if (body.error instanceof RunPause) {
            paused.push(...body.error.pending);
            return;
          }
          if (body.error) {
            failed[index] = true;
            firstError ??= body.error;
            return;
          }
          const out = body.read(c.output_selector);
          results[index] = out.found ? out.value : null;
        }),
      ),
    );
    if (firstError && c.error_handle_mode === "terminated") {
      throw new NodeExecutionError(
        "iteration.item_failed",
        `iteration item failed: ${firstError.message}`,
        ctx.node.id,
        {
          cause: (firstError as { code?: string }).code,
        },
      );
    }
    if (paused.length > 0) throw new RunPause(paused);
    let output = c.error_handle_mode === "remove-abnormal-output" ? results.filter((_, i) => !failed[i]) : results;
    if (c.flatten_output) output = flatten(output);
    return { outputs: { output }, meta: { items: items.length, failed: failed.filter(Boolean).length } };
  },
});

export const iterationStartNode = defineNode<Record<string, unknown>>({
  type: "iteration-start",
  label: "Iteration Start",
  category: "container",
  purpose: "Entry of an iteration body; created with the iteration, holds no config.",
  notes: ["Lives inside its iteration (parentId) and no edge joins it to the iteration node."],
  configSchema: z.object({ ...commonFields }).loose() as z.ZodType<Record<string, unknown>>,
  containerStart: { containerType: "iteration" },
  outputs: () => [],
  inputs: () => [],
  ports: () => ["source"],
  async execute() {
    return { outputs: {} };
  },
});

export { arrayOf };
