import { z } from "zod";
import { NodeExecutionError } from "../ir/errors.js";
import type { ExecContext } from "../ir/registry.js";
import { commonFields, defineNode, Sel } from "./common.js";

const OPERATIONS = [
  "over-write",
  "clear",
  "set",
  "append",
  "extend",
  "+=",
  "-=",
  "*=",
  "/=",
  "remove-first",
  "remove-last",
] as const;

const Item = z
  .object({
    variable_selector: Sel.default([]),
    input_type: z.enum(["variable", "constant"]).default("variable"),
    operation: z.string().default("over-write"),
    value: z.unknown().optional(),
  })
  .loose();

const AssignerConfig = z
  .object({
    ...commonFields,
    // v2
    items: z.array(Item).optional(),
    // v1
    assigned_variable_selector: Sel.optional(),
    write_mode: z.string().optional(),
    input_variable_selector: Sel.optional(),
  })
  .loose();
export type AssignerConfig = z.infer<typeof AssignerConfig>;
type ItemT = z.infer<typeof Item>;

/** v1 files carry one assignment; read both layouts as a list of v2 items. */
export function assignerItems(c: AssignerConfig): ItemT[] {
  if (c.items) return c.items;
  if (c.assigned_variable_selector) {
    return [
      {
        variable_selector: c.assigned_variable_selector,
        input_type: "variable",
        operation: c.write_mode ?? "over-write",
        value: c.input_variable_selector ?? [],
      },
    ];
  }
  return [];
}

function itemField(c: AssignerConfig, i: number, key: string): string {
  if (c.items) return `items[${i}].${key}`;
  return key === "variable_selector"
    ? "assigned_variable_selector"
    : key === "value"
      ? "input_variable_selector"
      : "write_mode";
}

function applyOperation(
  ctx: ExecContext<AssignerConfig>,
  op: string,
  current: unknown,
  input: unknown,
  field: string,
): unknown {
  const bad = (why: string) => new NodeExecutionError("assigner.bad_operation", why, ctx.node.id, { field });
  switch (op) {
    case "over-write":
    case "set":
      return input;
    case "clear":
      if (Array.isArray(current)) return [];
      if (typeof current === "string") return "";
      if (typeof current === "number") return 0;
      if (typeof current === "boolean") return false;
      if (current && typeof current === "object") return {};
      return null;
    case "append":
      if (!Array.isArray(current)) throw bad("append needs an array variable");
      return [...current, input];
    case "extend":
      if (!Array.isArray(current) || !Array.isArray(input))
        throw bad("extend needs an array variable and an array value");
      return [...current, ...input];
    case "+=":
    case "-=":
    case "*=":
    case "/=": {
      const a = Number(current);
      const b = Number(input);
      if (Number.isNaN(a) || Number.isNaN(b)) throw bad(`${op} needs numbers`);
      if (op === "/=" && b === 0) throw bad("division by zero");
      return op === "+=" ? a + b : op === "-=" ? a - b : op === "*=" ? a * b : a / b;
    }
    case "remove-first":
      if (!Array.isArray(current)) throw bad("remove-first needs an array variable");
      return current.slice(1);
    case "remove-last":
      if (!Array.isArray(current)) throw bad("remove-last needs an array variable");
      return current.slice(0, -1);
    default:
      throw bad(`unknown operation "${op}"`);
  }
}

export const assignerNode = defineNode<AssignerConfig>({
  type: "assigner",
  label: "Variable Assigner",
  category: "transform",
  purpose:
    "Writes conversation variables (advanced-chat) or loop variables (inside a loop): over-write, clear, set, append, extend, +=, -=, *=, /=, remove-first, remove-last.",
  notes: ["Targets must be [conversation, name] or [<loop_id>, <loop variable>]; it has no outputs."],
  configSchema: AssignerConfig,
  example: {
    version: "2",
    items: [
      {
        variable_selector: ["conversation", "history"],
        input_type: "variable",
        operation: "append",
        value: ["llm", "text"],
      },
    ],
  },
  outputs: () => [],
  inputs: (c) =>
    assignerItems(c).flatMap((it, i) => {
      const refs = [];
      if (it.variable_selector.length)
        refs.push({ selector: it.variable_selector, field: itemField(c, i, "variable_selector") });
      const needsValue = !["clear", "remove-first", "remove-last"].includes(it.operation);
      if (needsValue && it.input_type === "variable" && Array.isArray(it.value) && it.value.length > 0) {
        refs.push({ selector: (it.value as unknown[]).map(String), field: itemField(c, i, "value") });
      }
      return refs;
    }),
  ports: () => ["source"],
  rules(c, ctx) {
    const out = [];
    for (const [i, it] of assignerItems(c).entries()) {
      if (!(OPERATIONS as readonly string[]).includes(it.operation)) {
        out.push({
          code: "assigner.bad_operation",
          severity: "error" as const,
          nodeId: ctx.node.id,
          field: itemField(c, i, "operation"),
          message: `unknown operation "${it.operation}"; allowed: ${OPERATIONS.join(", ")}`,
        });
      }
      const head = it.variable_selector[0];
      const target = head ? ctx.nodeById(head) : undefined;
      const writable = head === "conversation" || (target?.type === "loop" && ctx.node.parentId !== undefined);
      if (it.variable_selector.length > 0 && !writable) {
        out.push({
          code: "assigner.not_writable",
          severity: "error" as const,
          nodeId: ctx.node.id,
          field: itemField(c, i, "variable_selector"),
          message: `${it.variable_selector.join(".")} is not writable: assign conversation variables or the enclosing loop's variables`,
        });
      }
    }
    return out;
  },
  async execute(ctx) {
    for (const [i, it] of assignerItems(ctx.config).entries()) {
      const current = ctx.read(it.variable_selector);
      if (!current.found) {
        throw new NodeExecutionError(
          "assigner.missing_target",
          `variable ${it.variable_selector.join(".")} does not exist`,
          ctx.node.id,
          { field: itemField(ctx.config, i, "variable_selector") },
        );
      }
      let input: unknown = it.value;
      const needsValue = !["clear", "remove-first", "remove-last"].includes(it.operation);
      if (needsValue && it.input_type === "variable" && Array.isArray(it.value) && it.value.length > 0) {
        const source = (it.value as unknown[]).map(String);
        const r = ctx.read(source);
        // Dify fails the node when the source variable does not exist (v1 and v2 alike).
        if (!r.found) {
          throw new NodeExecutionError(
            "assigner.missing_value",
            `value variable ${source.join(".")} does not exist`,
            ctx.node.id,
            {
              field: itemField(ctx.config, i, "value"),
            },
          );
        }
        input = r.value;
      }
      const next = applyOperation(ctx, it.operation, current.value, input, itemField(ctx.config, i, "operation"));
      ctx.writeVariable(it.variable_selector, next);
    }
    return { outputs: {} };
  },
});
