import { z } from "zod";
import { NodeExecutionError } from "../ir/errors.js";
import { SYSTEM_VARIABLES } from "../ir/system.js";
import { normaliseType } from "../ir/types.js";
import { commonFields, defineNode } from "./common.js";

const StartVariable = z
  .object({
    variable: z.string().min(1),
    label: z.string().optional(),
    type: z.string().default("text-input"),
    required: z.boolean().default(false),
    default: z.unknown().optional(),
    max_length: z.number().nullable().optional(),
    options: z.array(z.unknown()).optional(),
    hide: z.boolean().optional(),
    description: z.string().optional(),
    json_schema: z.unknown().optional(),
  })
  .loose();

const StartConfig = z.object({ ...commonFields, variables: z.array(StartVariable).default([]) }).loose();
export type StartConfig = z.infer<typeof StartConfig>;

/**
 * A start input type Weft reads (Dify's text-input, paragraph, select, number, checkbox, json_object, file,
 * file-list, external_data_tool, and the value types). Any other, e.g. an `image` written by a generator, Dify
 * refuses when the app runs (its VariableEntityType has no such member), so Weft does too.
 */
export function knownStartType(type: string): boolean {
  const t = type.trim().toLowerCase();
  return normaliseType(t) !== "any" || t === "any" || t === "external_data_tool";
}

function coerceInput(nodeId: string, v: StartVariable, raw: unknown): unknown {
  if (!knownStartType(v.type)) {
    throw new NodeExecutionError(
      "input.unknown_type",
      `input "${v.variable}" has type "${v.type}", which no start input has (use paragraph, number, checkbox, file, file-list, …)`,
      nodeId,
      { field: v.variable },
    );
  }
  const t = normaliseType(v.type);
  const fail = (why: string) =>
    new NodeExecutionError("input.invalid", `input "${v.variable}": ${why}`, nodeId, { field: v.variable });
  if (t === "number") {
    const n = typeof raw === "number" ? raw : typeof raw === "string" && raw.trim() !== "" ? Number(raw) : Number.NaN;
    if (Number.isNaN(n)) throw fail(`expected a number, got ${JSON.stringify(raw)}`);
    return n;
  }
  if (t === "boolean") {
    if (typeof raw === "boolean") return raw;
    if (raw === "true" || raw === "1") return true;
    if (raw === "false" || raw === "0") return false;
    throw fail(`expected a boolean, got ${JSON.stringify(raw)}`);
  }
  if (t === "object") {
    if (typeof raw === "string") {
      try {
        return JSON.parse(raw);
      } catch {
        throw fail("expected a JSON object");
      }
    }
    if (raw === null || typeof raw !== "object" || Array.isArray(raw)) throw fail("expected a JSON object");
    return raw;
  }
  if (t === "string") {
    const s = typeof raw === "string" ? raw : JSON.stringify(raw);
    // Dify checks max_length on text-input and paragraph only; a select's options are what they are.
    const bounded = v.type === "text-input" || v.type === "paragraph";
    if (bounded && v.max_length && s.length > v.max_length) throw fail(`longer than max_length ${v.max_length}`);
    if (v.type === "select" && v.options && v.options.length > 0 && !v.options.includes(s)) {
      throw fail(`must be one of ${JSON.stringify(v.options)}`);
    }
    return s;
  }
  // A file-list given one file is a one-element list (Dify's form and API both accept a single file).
  if (v.type === "file-list" && !Array.isArray(raw)) return [raw];
  return raw;
}

export type StartVariable = z.infer<typeof StartVariable>;

/**
 * The start node's outputs for the run's inputs: defaults for missing ones, values coerced to the
 * declared types. Throws input.missing / input.invalid naming the input; commands call it before a
 * run exists to refuse bad input up front.
 */
export function resolveStartInputs(
  nodeId: string,
  variables: readonly StartVariable[],
  inputs: Record<string, unknown>,
): Record<string, unknown> {
  const outputs: Record<string, unknown> = {};
  for (const v of variables) {
    const raw = inputs[v.variable];
    const missing = raw === undefined || raw === null || raw === "";
    if (missing) {
      if (v.default !== undefined && v.default !== null && v.default !== "") {
        outputs[v.variable] = coerceInput(nodeId, v, v.default);
      } else if (v.required) {
        throw new NodeExecutionError("input.missing", `required input "${v.variable}" was not given`, nodeId, {
          field: v.variable,
        });
      } else {
        outputs[v.variable] = null;
      }
      continue;
    }
    outputs[v.variable] = coerceInput(nodeId, v, raw);
  }
  return outputs;
}

export const startNode = defineNode<StartConfig>({
  type: "start",
  label: "Start",
  category: "io",
  purpose: "Entry point: declares the workflow's user inputs (text, paragraph, select, number, file, file-list, json).",
  notes: [
    "Exactly one start node per workflow; it has no incoming edges.",
    "Inputs are read as {{#<start_id>.<variable>#}}; system values as {{#sys.query#}}, {{#sys.files#}}.",
  ],
  configSchema: StartConfig,
  example: { variables: [{ variable: "query", label: "Query", type: "paragraph", required: true }] },
  entry: true,
  outputs: (c, _node) => [
    ...c.variables.map((v) => ({ name: v.variable, type: normaliseType(v.type) })),
    // The start node re-exports the system values, which legacy selectors [start, "sys.query"] rely on.
    ...SYSTEM_VARIABLES.map((s) => ({ name: `sys.${s.name}`, type: s.type })),
  ],
  inputs: () => [],
  ports: () => ["source"],
  rules(c, ctx) {
    const seen = new Set<string>();
    const out = [];
    for (const [i, v] of c.variables.entries()) {
      if (seen.has(v.variable)) {
        out.push({
          code: "start.duplicate_variable",
          severity: "error" as const,
          nodeId: ctx.node.id,
          field: `variables[${i}].variable`,
          message: `input "${v.variable}" is declared twice`,
        });
      }
      seen.add(v.variable);
      if (!knownStartType(v.type)) {
        out.push({
          code: "start.unknown_type",
          severity: "error" as const,
          nodeId: ctx.node.id,
          field: `variables[${i}].type`,
          message: `input "${v.variable}" has type "${v.type}", which no start input has (the run would refuse it): use paragraph, number, checkbox, select, json_object, file or file-list`,
        });
      }
    }
    return out;
  },
  async execute(ctx) {
    const outputs = resolveStartInputs(ctx.node.id, ctx.config.variables, ctx.runInputs);
    for (const s of SYSTEM_VARIABLES) {
      const r = ctx.read(["sys", s.name]);
      if (r.found) outputs[`sys.${s.name}`] = r.value;
    }
    return { outputs };
  },
});
