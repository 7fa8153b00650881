import { elementType, isArrayType, type ValueType } from "../../ir/types.js";
import { unsupported } from "./errors.js";
import type { CozeValueType, CozeVariableShape } from "./schema.js";

/** Coze's `assistType` for a generic file (FileBaseType.DEFAULT). */
export const FILE_ASSIST = 1;

/** `rawMeta.type` (view-variable-type.ts): editor hints, emitted to keep the Coze editor happy. */
const RAW_META: Partial<Record<ValueType, number>> = {
  string: 1,
  number: 4,
  boolean: 3,
  object: 6,
  file: 8,
  "array[string]": 99,
  "array[number]": 102,
  "array[boolean]": 101,
  "array[object]": 103,
};

export interface CozeTyped {
  type: CozeValueType;
  assistType?: number;
  /** Object: field Variables (unknown here, so empty); list: the element shape. */
  schema?: CozeVariableShape | [];
}

/**
 * The Coze type of a Weft value type. Numbers become `float`: a Dify number may hold a fraction, and
 * Coze's `integer` would reject it. `any` has no Coze spelling, so it is refused unless `fallback` says
 * what a lenient reader (a template) may treat it as.
 */
export function cozeTypeOf(t: ValueType, what: string, fallback?: CozeValueType): CozeTyped {
  if (t === "any") {
    if (fallback) return { type: fallback };
    unsupported(`the type of ${what} is not known (any); Coze needs a declared type`);
  }
  if (isArrayType(t)) {
    const el = elementType(t);
    if (el === "any") {
      if (fallback) return { type: fallback };
      unsupported(`the element type of ${what} is not known (array[any]); Coze needs a declared type`);
    }
    const inner = cozeTypeOf(el, what);
    return {
      type: "list",
      schema: {
        type: inner.type,
        ...(inner.assistType ? { assistType: inner.assistType } : {}),
        ...(inner.schema ? { schema: inner.schema } : {}),
      },
    };
  }
  switch (t) {
    case "string":
      return { type: "string" };
    case "number":
      return { type: "float" };
    case "boolean":
      return { type: "boolean" };
    case "object":
      return { type: "object", schema: [] };
    case "file":
      return { type: "string", assistType: FILE_ASSIST };
  }
  return unsupported(`the type ${t} of ${what} has no Coze equivalent`);
}

export function rawMetaOf(t: ValueType): { type: number } | undefined {
  const n = RAW_META[t];
  return n === undefined ? undefined : { type: n };
}
