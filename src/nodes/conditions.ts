import { z } from "zod";
import type { Diagnostic } from "../ir/diagnostics.js";
import { WeftError } from "../ir/errors.js";
import type { InputRef, TextField } from "../ir/registry.js";
import { templateRefs } from "../ir/selector.js";
import { parseJsonArray } from "../util/json.js";
import { Sel } from "./common.js";

/**
 * Dify's comparison operators (if-else, loop break conditions, list-operator filters), with the
 * ASCII spellings generation models tend to write accepted as the same operator.
 */
export const OPERATORS = [
  "contains",
  "not contains",
  "start with",
  "end with",
  "is",
  "is not",
  "empty",
  "not empty",
  "in",
  "not in",
  "all of",
  "=",
  "≠",
  ">",
  "<",
  "≥",
  "≤",
  "null",
  "not null",
  "exists",
  "not exists",
] as const;
export type Operator = (typeof OPERATORS)[number];

const ALIASES: Record<string, Operator> = {
  "==": "=",
  "!=": "≠",
  ">=": "≥",
  "<=": "≤",
  "starts with": "start with",
  "ends with": "end with",
  "is empty": "empty",
  "is not empty": "not empty",
};

export function normaliseOperator(op: string): Operator | undefined {
  if ((OPERATORS as readonly string[]).includes(op)) return op as Operator;
  return ALIASES[op];
}

/** Operators that take no expected value. */
export const UNARY: ReadonlySet<Operator> = new Set(["empty", "not empty", "null", "not null", "exists", "not exists"]);

export const SubCondition = z
  .object({ key: z.string().default(""), comparison_operator: z.string(), value: z.unknown().optional() })
  .loose();

export const Condition = z
  .object({
    variable_selector: Sel.default([]),
    comparison_operator: z.string(),
    value: z.unknown().optional(),
    varType: z.string().optional(),
    sub_variable_condition: z
      .object({ logical_operator: z.enum(["and", "or"]).default("and"), conditions: z.array(SubCondition).default([]) })
      .loose()
      .optional()
      .nullable(),
  })
  .loose();
export type Condition = z.infer<typeof Condition>;

export class ConditionError extends WeftError {}

/** Python truthiness, which Dify's `empty`/`not empty`/`contains` checks follow. */
function truthy(v: unknown): boolean {
  if (v === null || v === undefined || v === false || v === 0 || v === "") return false;
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === "object") return Object.keys(v as object).length > 0;
  return true;
}

function toNumber(v: unknown, what: string): number {
  if (typeof v === "number") return v;
  if (typeof v === "boolean") return v ? 1 : 0;
  if (typeof v === "string" && v.trim() !== "" && !Number.isNaN(Number(v))) return Number(v);
  throw new ConditionError("condition.not_a_number", `${what} ${JSON.stringify(v)} is not a number`);
}

function asList(v: unknown): unknown[] {
  if (Array.isArray(v)) return v;
  // A plain string is a one-element list, as the Dify UI writes single selections.
  if (typeof v === "string") return parseJsonArray(v) ?? [v];
  throw new ConditionError("condition.expected_list", `expected value ${JSON.stringify(v)} must be a list`);
}

function looseEqual(actual: unknown, expected: unknown): boolean {
  if (typeof actual === "boolean") {
    const e = typeof expected === "string" ? expected.trim().toLowerCase() : expected;
    return actual === (e === true || e === "true" || e === 1 || e === "1");
  }
  if (typeof actual === "number" && typeof expected === "string") return actual === Number(expected);
  return actual === expected || String(actual) === String(expected);
}

/** Evaluate one comparison exactly as Dify's condition processor does. */
export function compare(actual: unknown, operator: string, expected: unknown): boolean {
  const op = normaliseOperator(operator);
  if (!op) throw new ConditionError("condition.unknown_operator", `unknown comparison operator "${operator}"`);
  switch (op) {
    case "contains":
      if (!truthy(actual)) return false;
      if (typeof actual === "string") return actual.includes(String(expected ?? ""));
      if (Array.isArray(actual)) return actual.some((x) => looseEqual(x, expected));
      throw new ConditionError("condition.bad_operand", `"contains" needs a string or array, got ${typeof actual}`);
    case "not contains":
      if (!truthy(actual)) return true;
      return !compare(actual, "contains", expected);
    case "start with":
      if (!truthy(actual)) return false;
      if (typeof actual !== "string") throw new ConditionError("condition.bad_operand", `"start with" needs a string`);
      return actual.startsWith(String(expected ?? ""));
    case "end with":
      if (!truthy(actual)) return false;
      if (typeof actual !== "string") throw new ConditionError("condition.bad_operand", `"end with" needs a string`);
      return actual.endsWith(String(expected ?? ""));
    case "is":
      if (actual === null || actual === undefined) return false;
      return looseEqual(actual, expected);
    case "is not":
      if (actual === null || actual === undefined) return false;
      return !looseEqual(actual, expected);
    case "empty":
      return !truthy(actual);
    case "not empty":
      return truthy(actual);
    // Dify tests `not value` first, so "", 0 and [] behave like null here.
    case "in":
      if (!truthy(actual)) return false;
      return asList(expected).some((x) => looseEqual(actual, x));
    case "not in":
      if (!truthy(actual)) return true;
      return !asList(expected).some((x) => looseEqual(actual, x));
    case "all of": {
      if (!truthy(actual)) return false;
      const want = asList(expected);
      // Python `item in value`: substring for a string, membership for a list.
      if (typeof actual === "string") return want.every((x) => actual.includes(String(x)));
      if (!Array.isArray(actual))
        throw new ConditionError("condition.bad_operand", `"all of" needs a string or array, got ${typeof actual}`);
      return want.every((x) => actual.some((a) => looseEqual(a, x)));
    }
    case "=":
    case "≠":
    case ">":
    case "<":
    case "≥":
    case "≤": {
      if (actual === null || actual === undefined) return false;
      if (typeof actual === "string" && (op === "=" || op === "≠")) {
        throw new ConditionError(
          "condition.bad_operand",
          `"${op}" compares numbers or booleans; the value is a string (use "is"/"is not")`,
        );
      }
      const a = toNumber(actual, "value");
      // Dify JSON-parses the expected value of a boolean variable, so `= "true"` compares as booleans.
      const e =
        typeof actual === "boolean" && typeof expected === "string"
          ? Number(looseEqual(true, expected))
          : toNumber(expected, "expected value");
      if (op === "=") return a === e;
      if (op === "≠") return a !== e;
      if (op === ">") return a > e;
      if (op === "<") return a < e;
      if (op === "≥") return a >= e;
      return a <= e;
    }
    case "null":
      return actual === null || actual === undefined;
    case "not null":
    case "exists":
      return actual !== null && actual !== undefined;
    case "not exists":
      return actual === null || actual === undefined;
  }
}

function fileAttribute(file: unknown, key: string): unknown {
  if (!file || typeof file !== "object") return undefined;
  const f = file as Record<string, unknown>;
  if (key === "name") return f.filename ?? f.name;
  if (key === "url") return f.remote_url ?? f.url;
  if (key === "extension") {
    const ext = f.extension;
    return typeof ext === "string" && ext && !ext.startsWith(".") ? `.${ext}` : ext;
  }
  return f[key];
}

function normaliseExpectedExtension(key: string, v: unknown): unknown {
  if (key === "extension" && typeof v === "string" && v && !v.startsWith(".")) return `.${v}`;
  return v;
}

export interface ConditionEnv {
  /** Read a selector; `found: false` is fatal for conditions (Dify fails the node). */
  read(selector: readonly string[]): { found: boolean; value?: unknown };
  render(text: string): string;
}

function expectedValue(c: { value?: unknown }, env: ConditionEnv): unknown {
  return typeof c.value === "string" ? env.render(c.value) : c.value;
}

export function evaluateCondition(c: Condition, env: ConditionEnv): boolean {
  const r = env.read(c.variable_selector);
  if (!r.found) {
    throw new ConditionError(
      "condition.missing_variable",
      `condition variable ${c.variable_selector.join(".")} does not exist (its node did not run or has no such output)`,
    );
  }
  const actual = r.value;
  const op = c.comparison_operator;
  const sub = c.sub_variable_condition;
  if (
    Array.isArray(actual) &&
    sub &&
    sub.conditions.length > 0 &&
    ["contains", "not contains", "all of"].includes(op)
  ) {
    // File arrays: each sub-condition tests a file attribute; "not" operators need every file to pass.
    const results = sub.conditions.map((sc) => {
      const exp = normaliseExpectedExtension(sc.key, expectedValue(sc, env));
      const test = (f: unknown) => compare(fileAttribute(f, sc.key), sc.comparison_operator, exp);
      return sc.comparison_operator.includes("not") ? actual.every(test) : actual.some(test);
    });
    return sub.logical_operator === "or" ? results.some(Boolean) : results.every(Boolean);
  }
  return compare(actual, op, expectedValue(c, env));
}

/** Short-circuit evaluation of a condition list joined by and/or. */
export function evaluateConditions(list: readonly Condition[], logical: "and" | "or", env: ConditionEnv): boolean {
  if (logical === "or") {
    for (const c of list) if (evaluateCondition(c, env)) return true;
    return false;
  }
  for (const c of list) if (!evaluateCondition(c, env)) return false;
  return true;
}

export function conditionInputs(list: readonly Condition[], field: string): InputRef[] {
  const out: InputRef[] = [];
  list.forEach((c, i) => {
    if (c.variable_selector.length > 0)
      out.push({ selector: c.variable_selector, field: `${field}[${i}].variable_selector` });
    if (typeof c.value === "string") {
      for (const ref of templateRefs(c.value)) {
        out.push({ selector: ref.selector, field: `${field}[${i}].value`, fromTemplate: true });
      }
    }
  });
  return out;
}

export function conditionTexts(list: readonly Condition[], field: string): TextField[] {
  return list.flatMap((c, i) =>
    typeof c.value === "string" && c.value.includes("{{#")
      ? [{ field: `${field}[${i}].value`, text: c.value, kind: "dify" as const }]
      : [],
  );
}

export function conditionRules(list: readonly Condition[], field: string, nodeId: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const [i, c] of list.entries()) {
    const op = normaliseOperator(c.comparison_operator);
    if (!op) {
      out.push({
        code: "condition.unknown_operator",
        severity: "error" as const,
        nodeId,
        field: `${field}[${i}].comparison_operator`,
        message: `unknown comparison operator "${c.comparison_operator}"; allowed: ${OPERATORS.join(", ")}`,
      });
    }
    if (c.variable_selector.length === 0) {
      out.push({
        code: "condition.no_variable",
        severity: "error" as const,
        nodeId,
        field: `${field}[${i}].variable_selector`,
        message: "condition has no variable",
      });
    }
  }
  return out;
}
