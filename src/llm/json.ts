/** Reading JSON that a model wrote: tolerate fences and small syntax slips, then check it against a schema. */
import { jsonrepair } from "jsonrepair";
import { z } from "zod";
import { answerTooLong } from "../util/answer-limits.js";

export type JsonParse = { ok: true; value: unknown; repaired: boolean } | { ok: false; error: string };

/**
 * Parses model output as JSON. Strips a ```json fence and any prose around the outermost object/array,
 * then falls back to jsonrepair (trailing commas, single quotes, unquoted keys, truncated endings).
 */
export function parseModelJson(text: string): JsonParse {
  // The fence regex and jsonrepair scan the whole text; a runaway answer is refused first.
  const tooLong = answerTooLong(text);
  if (tooLong) return { ok: false, error: tooLong };
  const candidate = extractJsonText(text);
  if (!candidate) return { ok: false, error: "the answer contains no JSON value" };
  try {
    return { ok: true, value: JSON.parse(candidate), repaired: false };
  } catch (first) {
    // jsonrepair would turn any prose into a JSON string; only repair what looks like an object or array.
    if (!/^[[{]/.test(candidate)) return { ok: false, error: "the answer contains no JSON value" };
    try {
      return { ok: true, value: JSON.parse(jsonrepair(candidate)), repaired: true };
    } catch {
      return { ok: false, error: `the answer is not valid JSON (${(first as Error).message})` };
    }
  }
}

function extractJsonText(text: string): string {
  const trimmed = text.trim();
  const fence = /```(?:json|JSON)?\s*\n?([\s\S]*?)```/.exec(trimmed);
  const body = (fence?.[1] ?? trimmed).trim();
  if (body.startsWith("{") || body.startsWith("[")) return body;
  // Prose before the value ("Here is the JSON: {...}"): start at the first bracket.
  const start = body.search(/[[{]/);
  return start >= 0 ? body.slice(start) : body;
}

export type Validation = { ok: true; value: unknown } | { ok: false; errors: string[] };

const compiled = new WeakMap<object, z.ZodType | null>();

/** Validates `value` against a JSON Schema (via zod's JSON Schema import); messages name the path. */
export function validateJsonSchema(value: unknown, schema: Record<string, unknown>): Validation {
  let validator = compiled.get(schema);
  if (validator === undefined) {
    try {
      validator = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
    } catch {
      // A schema zod cannot import (exotic keywords) still gets the structural checks below.
      validator = null;
    }
    compiled.set(schema, validator);
  }
  if (validator === null) return minimalValidate(value, schema, "$");
  const result = validator.safeParse(value);
  if (result.success) return { ok: true, value: result.data };
  return {
    ok: false,
    errors: result.error.issues.map((i) => `${["$", ...i.path.map(String)].join(".")}: ${i.message}`),
  };
}

/** type / required / properties / items / enum only: enough to catch the usual model mistakes. */
function minimalValidate(value: unknown, schema: Record<string, unknown>, path: string): Validation {
  const errors: string[] = [];
  walk(value, schema, path, errors);
  return errors.length ? { ok: false, errors } : { ok: true, value };
}

function walk(value: unknown, schema: Record<string, unknown>, path: string, errors: string[]): void {
  const type = schema.type;
  if (typeof type === "string" && !hasType(value, type)) {
    errors.push(`${path}: expected ${type}, received ${describe(value)}`);
    return;
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((e) => JSON.stringify(e) === JSON.stringify(value))) {
    errors.push(`${path}: expected one of ${schema.enum.map((e) => JSON.stringify(e)).join(", ")}`);
  }
  if (value && typeof value === "object" && !Array.isArray(value)) {
    const obj = value as Record<string, unknown>;
    for (const key of Array.isArray(schema.required) ? schema.required : []) {
      if (typeof key === "string" && !(key in obj)) errors.push(`${path}.${key}: required`);
    }
    const props = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
    for (const [key, sub] of Object.entries(props)) {
      if (key in obj && sub && typeof sub === "object") walk(obj[key], sub, `${path}.${key}`, errors);
    }
  }
  if (Array.isArray(value) && schema.items && typeof schema.items === "object") {
    const items = schema.items as Record<string, unknown>;
    value.forEach((item, i) => {
      walk(item, items, `${path}.${i}`, errors);
    });
  }
}

function hasType(value: unknown, type: string): boolean {
  switch (type) {
    case "object":
      return value !== null && typeof value === "object" && !Array.isArray(value);
    case "array":
      return Array.isArray(value);
    case "integer":
      return Number.isInteger(value);
    case "number":
      return typeof value === "number";
    case "null":
      return value === null;
    default:
      return typeof value === type;
  }
}

function describe(value: unknown): string {
  return value === null ? "null" : Array.isArray(value) ? "array" : typeof value;
}
