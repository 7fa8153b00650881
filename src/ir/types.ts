import { z } from "zod";

/** Value types an artifact can carry. Mirrors Dify's segment types, plus `any` for unknown shapes. */
export const SCALAR_TYPES = ["string", "number", "boolean", "object", "file"] as const;
export const ARRAY_TYPES = [
  "array[string]",
  "array[number]",
  "array[boolean]",
  "array[object]",
  "array[file]",
  "array[any]",
] as const;
export const VALUE_TYPES = [...SCALAR_TYPES, ...ARRAY_TYPES, "any"] as const;

/** The types a JSON value can have, without files: what a code node may return, what a webhook parameter may be. */
export const JSON_VALUE_TYPES = [
  "string",
  "number",
  "boolean",
  "object",
  "array[string]",
  "array[number]",
  "array[boolean]",
  "array[object]",
] as const;

export const ValueTypeSchema = z.enum(VALUE_TYPES);
export type ValueType = z.infer<typeof ValueTypeSchema>;

export function isArrayType(t: ValueType): boolean {
  return t.startsWith("array[");
}

export function elementType(t: ValueType): ValueType {
  if (!isArrayType(t)) return "any";
  const inner = t.slice(6, -1);
  return inner === "any" ? "any" : (inner as ValueType);
}

export function arrayOf(t: ValueType): ValueType {
  if (t === "any" || isArrayType(t)) return "array[any]";
  return `array[${t}]` as ValueType;
}

/**
 * Normalise the type spellings found in real Dify files (`text-input`, `paragraph`, `integer`,
 * `array[string]`, `secret`, ...) into Weft value types. Unknown spellings become `any` so that a
 * strange file never crashes the analyser; callers that care report the raw spelling.
 */
export function normaliseType(raw: unknown): ValueType {
  if (typeof raw !== "string") return "any";
  const t = raw.trim().toLowerCase();
  switch (t) {
    case "string":
    case "text-input":
    case "paragraph":
    case "select":
    case "secret":
    case "text":
      return "string";
    case "number":
    case "integer":
    case "float":
      return "number";
    case "boolean":
    case "bool":
    case "checkbox":
      return "boolean";
    case "object":
    case "json_object":
    case "dict":
      return "object";
    case "file":
      return "file";
    case "file-list":
    case "files":
      return "array[file]";
    case "array":
      return "array[any]";
    default:
      return (VALUE_TYPES as readonly string[]).includes(t) ? (t as ValueType) : "any";
  }
}

/** Can a value of type `actual` flow into a slot that expects `expected`? `any` is compatible both ways. */
export function isAssignable(actual: ValueType, expected: ValueType): boolean {
  if (actual === "any" || expected === "any") return true;
  if (actual === expected) return true;
  if (isArrayType(actual) && isArrayType(expected)) {
    const a = elementType(actual);
    const e = elementType(expected);
    return a === "any" || e === "any" || a === e;
  }
  return false;
}
