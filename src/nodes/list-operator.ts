import { z } from "zod";
import { NodeExecutionError } from "../ir/errors.js";
import { elementType, normaliseType, type ValueType } from "../ir/types.js";
import { commonFields, defineNode, Sel } from "./common.js";
import { ConditionError, compare } from "./conditions.js";

const FilterCondition = z
  .object({ key: z.string().default(""), comparison_operator: z.string(), value: z.unknown().optional() })
  .loose();

const ListOperatorConfig = z
  .object({
    ...commonFields,
    variable: Sel.default([]),
    var_type: z.string().optional(),
    item_var_type: z.string().optional(),
    filter_by: z
      .object({ enabled: z.boolean().default(false), conditions: z.array(FilterCondition).default([]) })
      .loose()
      .optional()
      .nullable(),
    extract_by: z
      .object({ enabled: z.boolean().default(false), serial: z.union([z.string(), z.number()]).default("1") })
      .loose()
      .optional()
      .nullable(),
    order_by: z
      .object({
        enabled: z.boolean().default(false),
        key: z.string().default(""),
        value: z.enum(["asc", "desc"]).default("asc"),
      })
      .loose()
      .optional()
      .nullable(),
    limit: z
      .object({ enabled: z.boolean().default(false), size: z.number().int().min(0).default(10) })
      .loose()
      .optional()
      .nullable(),
  })
  .loose();
export type ListOperatorConfig = z.infer<typeof ListOperatorConfig>;

function listType(c: ListOperatorConfig): ValueType {
  const t = normaliseType(c.var_type);
  return t.startsWith("array[") ? t : "array[any]";
}

function fileKey(item: unknown, key: string): unknown {
  if (!key || item === null || typeof item !== "object") return item;
  const f = item as Record<string, unknown>;
  if (key === "name") return f.filename ?? f.name;
  if (key === "url") return f.remote_url ?? f.url;
  return f[key];
}

function fail(ctx: { node: { id: string } }, code: string, message: string, field?: string): never {
  throw new NodeExecutionError(code, message, ctx.node.id, field ? { field } : {});
}

export const listOperatorNode = defineNode<ListOperatorConfig>({
  type: "list-operator",
  label: "List Operator",
  category: "transform",
  purpose: "Filters, extracts (1-based serial), sorts and limits an array; outputs result, first_record, last_record.",
  notes: [
    "Works on array[string], array[number], array[boolean] or array[file]; array[object] is rejected.",
    "Order of operations: filter, extract, sort, limit.",
  ],
  configSchema: ListOperatorConfig,
  example: {
    variable: ["start", "files"],
    filter_by: { enabled: true, conditions: [{ key: "type", comparison_operator: "in", value: ["document"] }] },
  },
  outputs: (c) => {
    const t = listType(c);
    return [
      { name: "result", type: t },
      { name: "first_record", type: elementType(t) },
      { name: "last_record", type: elementType(t) },
    ];
  },
  inputs: (c) =>
    c.variable.length ? [{ selector: c.variable, field: "variable", expects: "array[any]" as const }] : [],
  ports: () => ["source"],
  rules(c, ctx) {
    const out = [];
    if (c.variable.length === 0) {
      out.push({
        code: "list.no_variable",
        severity: "error" as const,
        nodeId: ctx.node.id,
        field: "variable",
        message: "list-operator has no input variable",
      });
    }
    if (listType(c) === "array[object]") {
      out.push({
        code: "list.object_array",
        severity: "error" as const,
        nodeId: ctx.node.id,
        field: "variable",
        message: "list-operator does not accept array[object] (Dify rejects it); use a code node",
      });
    }
    return out;
  },
  async execute(ctx) {
    const c = ctx.config;
    const r = ctx.read(c.variable);
    if (!r.found)
      fail(ctx, "list.missing_variable", `input variable ${c.variable.join(".")} does not exist`, "variable");
    // Dify returns early on an empty (or null) list, before filter/extract/sort/limit can object.
    if (r.value === null || (Array.isArray(r.value) && r.value.length === 0)) {
      return { outputs: { result: [], first_record: null, last_record: null } };
    }
    if (!Array.isArray(r.value))
      fail(ctx, "list.not_array", `input variable ${c.variable.join(".")} is not an array`, "variable");
    let items = [...(r.value as unknown[])];
    if (items.some((x) => x !== null && typeof x === "object" && !("transfer_method" in (x as object)))) {
      fail(ctx, "list.object_array", "list-operator does not accept arrays of objects", "variable");
    }
    try {
      if (c.filter_by?.enabled) {
        for (const cond of c.filter_by.conditions) {
          const expected = typeof cond.value === "string" ? ctx.render(cond.value) : cond.value;
          items = items.filter((it) => compare(fileKey(it, cond.key), cond.comparison_operator, expected));
        }
      }
    } catch (e) {
      if (e instanceof ConditionError) fail(ctx, e.code, `filter: ${e.message}`, "filter_by");
      throw e;
    }
    if (c.extract_by?.enabled) {
      const serialText =
        typeof c.extract_by.serial === "string" ? ctx.render(c.extract_by.serial) : String(c.extract_by.serial);
      const serial = Number(serialText);
      if (!Number.isInteger(serial) || serial < 1)
        fail(ctx, "list.bad_serial", `extract serial "${serialText}" is not a positive integer`, "extract_by.serial");
      if (serial > items.length)
        fail(
          ctx,
          "list.serial_out_of_range",
          `extract serial ${serial} exceeds list length ${items.length}`,
          "extract_by.serial",
        );
      items = [items[serial - 1]];
    }
    if (c.order_by?.enabled) {
      const key = c.order_by.key;
      const dir = c.order_by.value === "desc" ? -1 : 1;
      items.sort((a, b) => {
        const x = fileKey(a, key) as any;
        const y = fileKey(b, key) as any;
        return (x < y ? -1 : x > y ? 1 : 0) * dir;
      });
    }
    if (c.limit?.enabled) items = items.slice(0, c.limit.size);
    return {
      outputs: {
        result: items,
        first_record: items[0] ?? null,
        last_record: items.length ? items[items.length - 1] : null,
      },
    };
  },
});
