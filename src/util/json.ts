/**
 * Helpers for JSON that comes from outside (model answers, user files). Keys such as `constructor`,
 * `valueOf` or `__proto__` are ordinary data here: lookups go through `Object.hasOwn`, objects are built
 * with own properties, and values are turned into text without calling anything on them.
 */
import { isDeepStrictEqual } from "node:util";

export type JsonObject = Record<string, unknown>;

export function isPlainObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The list a string spells in JSON (`["a","b"]`), or undefined when it spells something else or is not JSON. */
export function parseJsonArray(text: string): unknown[] | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    return Array.isArray(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** Set an own property even for keys like `__proto__`, which plain assignment would turn into a prototype. */
export function setOwn(obj: JsonObject, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * A short, safe description of any value for a diagnostic message. `String(v)` would call `toString`
 * on an object, which throws for `{"toString": 1, "valueOf": 1}`; JSON text never calls anything.
 */
export function describeValue(v: unknown, max = 80): string {
  let s: string;
  if (typeof v === "string") s = JSON.stringify(v);
  else if (v === undefined) s = "nothing";
  else if (typeof v === "number" || typeof v === "boolean" || v === null) s = JSON.stringify(v);
  else {
    try {
      s = JSON.stringify(v) ?? typeof v;
    } catch {
      s = Array.isArray(v) ? "a list" : typeof v;
    }
  }
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/** A string as is, a number or boolean as its text, anything else undefined (never an implicit toString). */
export function scalarText(v: unknown): string | undefined {
  if (typeof v === "string") return v;
  if (typeof v === "number" && Number.isFinite(v)) return String(v);
  if (typeof v === "boolean") return String(v);
  return undefined;
}

/** JSON text with object keys sorted, so equal data gives equal text whatever the key order. */
export function canonicalJson(v: unknown): string {
  return JSON.stringify(v, (_k, x) =>
    isPlainObject(x) ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : x,
  );
}

export function deepEqual(a: unknown, b: unknown): boolean {
  return isDeepStrictEqual(a, b);
}

/** Equal as JSON whatever the key order (a value read back through a schema may list its keys differently). */
export const sameJson = (a: unknown, b: unknown): boolean => canonicalJson(a) === canonicalJson(b);
