import { z } from "zod";
import type { InputRef, NodeTypeDef, TextField } from "../ir/registry.js";
import { templateRefs } from "../ir/selector.js";

/** A selector as found in real files: a list of strings (numbers are tolerated and stringified). */
export const Sel = z.array(z.union([z.string(), z.number()]).transform(String));

/** Fields every Dify node may carry. Unknown fields are kept by `.loose()` on each schema. */
export const commonFields = {
  desc: z.string().optional(),
  selected: z.boolean().optional(),
  version: z.union([z.string(), z.number()]).optional(),
  error_strategy: z.enum(["fail-branch", "default-value", "none"]).optional().nullable(),
  default_value: z
    .array(z.object({ key: z.string(), type: z.string(), value: z.unknown() }).loose())
    .optional()
    .nullable(),
  retry_config: z
    .object({
      retry_enabled: z.boolean().default(false),
      // Real exports write these as strings ("100"), which Dify accepts.
      max_retries: z.coerce.number().int().min(0).default(0),
      retry_interval: z.coerce.number().min(0).default(0),
    })
    .loose()
    .optional()
    .nullable(),
  /** Weft extension: per-node timeout in seconds. */
  timeout_seconds: z.number().positive().optional(),
  /** Weft extension: gates checked on the outputs; a failing gate retries the node with feedback. */
  gates: z
    .array(
      z
        .object({
          output: z.string(),
          check: z.enum(["not_empty", "regex", "json_schema", "max_length", "min_length", "one_of"]),
          value: z.unknown().optional(),
          message: z.string().optional(),
        })
        .loose(),
    )
    .optional(),
  isInIteration: z.boolean().optional(),
  iteration_id: z.string().optional().nullable(),
  isInLoop: z.boolean().optional(),
  loop_id: z.string().optional().nullable(),
};

export const ModelSchema = z
  .object({
    provider: z.string().default(""),
    name: z.string().default(""),
    mode: z.string().default("chat"),
    completion_params: z.record(z.string(), z.unknown()).default({}),
  })
  .loose();

/** `{variable, value_selector}` pairs of code, template-transform and end nodes. */
export const VariableBinding = z
  .object({
    variable: z.string(),
    value_selector: Sel.default([]),
    value_type: z.string().optional(),
  })
  .loose();

export function bindingInputs(
  list: ReadonlyArray<{ value_selector: string[] }> | undefined,
  field: string,
  // A value produced on one branch only is an error at a join unless merged (DESIGN.md), even though
  // Dify passes null at run time: the null is almost never what the author meant.
  optional = false,
): InputRef[] {
  return (list ?? [])
    .map((b, i) => ({ selector: b.value_selector, field: `${field}[${i}].value_selector`, optional }))
    .filter((r) => r.selector.length > 0);
}

/** `{{#…#}}` references of a template text, as inputs of `field`. */
export function templateInputs(text: unknown, field: string): InputRef[] {
  if (typeof text !== "string" || text.length === 0) return [];
  return templateRefs(text).map((r) => ({ selector: r.selector, field, fromTemplate: true }));
}

export function textField(field: string, text: unknown, kind: TextField["kind"] = "dify"): TextField[] {
  return typeof text === "string" && text.length > 0 ? [{ field, text, kind }] : [];
}

/** Types a node definition; src/nodes/index.ts lists it in the catalogue. */
export function defineNode<C>(def: NodeTypeDef<C>): NodeTypeDef<C> {
  return def;
}

export const SOURCE = ["source"];
