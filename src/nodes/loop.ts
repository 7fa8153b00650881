import { z } from "zod";
import { NodeExecutionError, RunPause } from "../ir/errors.js";
import type { InputRef } from "../ir/registry.js";
import { normaliseType, type ValueType } from "../ir/types.js";
import { commonFields, defineNode } from "./common.js";
import { Condition, conditionInputs, conditionRules, evaluateConditions } from "./conditions.js";

const LoopVariable = z
  .object({
    id: z.string().optional(),
    label: z.string().min(1),
    var_type: z.string().default("string"),
    value_type: z.enum(["constant", "variable"]).default("constant"),
    value: z.unknown().optional(),
  })
  .loose();

const LoopConfig = z
  .object({
    ...commonFields,
    start_node_id: z.string().default(""),
    loop_count: z.number().int().min(1).default(10),
    break_conditions: z.array(Condition).default([]),
    logical_operator: z.enum(["and", "or"]).default("and"),
    loop_variables: z.array(LoopVariable).default([]),
    error_handle_mode: z.string().optional(),
  })
  .loose();
export type LoopConfig = z.infer<typeof LoopConfig>;

/** Dify's hard cap on rounds (LOOP_NODE_MAX_COUNT). */
export const LOOP_MAX_COUNT = 100;

function coerce(value: unknown, type: ValueType): unknown {
  if (value === undefined || value === null)
    return type.startsWith("array[") ? [] : type === "number" ? 0 : type === "string" ? "" : null;
  if (type === "number") return typeof value === "number" ? value : Number(value);
  if (type === "boolean") return typeof value === "boolean" ? value : value === "true" || value === 1 || value === "1";
  if (type === "string") return typeof value === "string" ? value : JSON.stringify(value);
  if (typeof value === "string" && (type === "object" || type.startsWith("array["))) {
    try {
      return JSON.parse(value);
    } catch {
      return value;
    }
  }
  return value;
}

export const loopNode = defineNode<LoopConfig>({
  type: "loop",
  label: "Loop",
  category: "container",
  purpose:
    "Repeats its body until break conditions hold or loop_count rounds ran; loop variables carry state between rounds (updated by assigner nodes in the body).",
  notes: [
    "Body starts at a loop-start child; a loop-end child breaks immediately.",
    "Read loop variables as {{#<loop_id>.<label>#}}; outputs are the loop variables plus loop_round.",
    "Break conditions are checked before the first round and after every round.",
  ],
  configSchema: LoopConfig,
  example: {
    loop_count: 10,
    loop_variables: [{ label: "num", var_type: "number", value_type: "constant", value: 0 }],
    break_conditions: [{ variable_selector: ["loop", "num"], comparison_operator: "≥", value: "5" }],
    logical_operator: "and",
  },
  container: { startType: "loop-start" },
  outputs: (c) => [
    ...c.loop_variables.map((v) => ({ name: v.label, type: normaliseType(v.var_type) })),
    { name: "loop_round", type: "number" as const },
  ],
  scopeOutputs: (c) => c.loop_variables.map((v) => ({ name: v.label, type: normaliseType(v.var_type) })),
  inputs: (c, node) => {
    const refs: InputRef[] = [];
    c.loop_variables.forEach((v, i) => {
      if (v.value_type === "variable" && Array.isArray(v.value) && v.value.length) {
        refs.push({ selector: (v.value as unknown[]).map(String), field: `loop_variables[${i}].value` });
      }
    });
    // Break conditions read the loop's own variables or body outputs; only outside reads are inputs.
    for (const r of conditionInputs(c.break_conditions, "break_conditions")) {
      if (r.selector[0] !== node.id) refs.push({ ...r, optional: true });
    }
    return refs;
  },
  ports: () => ["source"],
  rules(c, ctx) {
    const out = conditionRules(c.break_conditions, "break_conditions", ctx.node.id);
    if (c.loop_count > LOOP_MAX_COUNT) {
      out.push({
        code: "loop.count_too_high",
        severity: "error",
        nodeId: ctx.node.id,
        field: "loop_count",
        message: `loop_count ${c.loop_count} exceeds the maximum ${LOOP_MAX_COUNT}`,
      });
    }
    const labels = new Set<string>();
    for (const [i, v] of c.loop_variables.entries()) {
      if (labels.has(v.label)) {
        out.push({
          code: "loop.duplicate_variable",
          severity: "error",
          nodeId: ctx.node.id,
          field: `loop_variables[${i}].label`,
          message: `loop variable "${v.label}" declared twice`,
        });
      }
      labels.add(v.label);
    }
    if (c.break_conditions.length === 0 && !ctx.childrenOf(ctx.node.id).some((n) => n.type === "loop-end")) {
      out.push({
        code: "loop.no_exit",
        severity: "warning",
        nodeId: ctx.node.id,
        field: "break_conditions",
        message: "loop has no break conditions and no loop-end: it always runs loop_count rounds",
      });
    }
    return out;
  },
  async execute(ctx) {
    const c = ctx.config;
    const vars: Record<string, unknown> = {};
    for (const [i, v] of c.loop_variables.entries()) {
      const type = normaliseType(v.var_type);
      if (v.value_type === "variable") {
        const r = ctx.read(Array.isArray(v.value) ? (v.value as unknown[]).map(String) : []);
        if (!r.found) {
          throw new NodeExecutionError(
            "loop.missing_variable",
            `loop variable "${v.label}" source does not exist`,
            ctx.node.id,
            { field: `loop_variables[${i}].value` },
          );
        }
        vars[v.label] = r.value;
      } else {
        vars[v.label] = coerce(v.value, type);
      }
    }
    const readWith = (state: Record<string, unknown>, body?: { read: typeof ctx.read }) => (sel: readonly string[]) => {
      if (sel[0] === ctx.node.id && sel.length >= 2 && sel[1]! in state) return { found: true, value: state[sel[1]!] };
      return body ? body.read(sel) : ctx.read(sel);
    };
    const shouldBreak = (read: typeof ctx.read) =>
      c.break_conditions.length > 0 &&
      evaluateConditions(c.break_conditions, c.logical_operator, { read, render: (t) => ctx.render(t) });
    let round = 0;
    let reason = "loop_completed";
    let preBreak = false;
    try {
      preBreak = shouldBreak(readWith(vars));
    } catch {
      // Dify ignores errors in the pre-check: body outputs referenced by conditions do not exist yet.
    }
    if (preBreak) reason = "loop_break";
    while (!preBreak && round < Math.min(c.loop_count, LOOP_MAX_COUNT)) {
      const body = await ctx.runBody({ scope: { ...vars }, sharedPool: true, index: round });
      // A round waiting for a human pauses the loop; a resume replays the finished rounds from their commits.
      if (body.error instanceof RunPause) throw body.error;
      if (body.error) {
        throw new NodeExecutionError(
          "loop.round_failed",
          `loop round ${round + 1} failed: ${body.error.message}`,
          ctx.node.id,
          { round: round + 1 },
        );
      }
      round++;
      for (const v of c.loop_variables) {
        const r = body.read([ctx.node.id, v.label]);
        if (r.found) vars[v.label] = r.value;
      }
      if (body.ran("loop-end")) {
        reason = "loop_break";
        break;
      }
      if (shouldBreak(readWith(vars, body))) {
        reason = "loop_break";
        break;
      }
    }
    return { outputs: { ...vars, loop_round: round }, meta: { completed_reason: reason } };
  },
});

const emptyConfig = z.object({ ...commonFields }).loose() as z.ZodType<Record<string, unknown>>;

export const loopStartNode = defineNode<Record<string, unknown>>({
  type: "loop-start",
  label: "Loop Start",
  category: "container",
  purpose: "Entry of a loop body; created with the loop, holds no config.",
  notes: ["Lives inside its loop (parentId) and no edge joins it to the loop node."],
  configSchema: emptyConfig,
  containerStart: { containerType: "loop" },
  outputs: () => [],
  inputs: () => [],
  ports: () => ["source"],
  async execute() {
    return { outputs: {} };
  },
});

export const loopEndNode = defineNode<Record<string, unknown>>({
  type: "loop-end",
  label: "Exit Loop",
  category: "container",
  purpose: "Inside a loop body: when reached, the loop stops after the current round.",
  configSchema: emptyConfig,
  outputs: () => [],
  inputs: () => [],
  ports: () => [],
  async execute() {
    return { outputs: {} };
  },
});
