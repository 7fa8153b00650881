/**
 * Guards for tables and values that model-written strings reach. A lookup `table[key]` with a key
 * such as "constructor" or "valueOf" returns an Object.prototype member instead of undefined, and
 * `String(v)` throws on an object whose own `toString`/`valueOf` is not a function — both were found
 * by fuzzing hostile model answers (issue 16).
 */

/** `table[key]` only when the table itself holds the key (and the key is a string at all). */
export function own<T>(table: Readonly<Record<string, T>>, key: unknown): T | undefined {
  return typeof key === "string" && Object.hasOwn(table, key) ? table[key] : undefined;
}

/** A model-written value as text for messages: strings as they are, everything else as JSON. */
export function textOf(v: unknown): string {
  if (typeof v === "string") return v;
  const json = JSON.stringify(v);
  return json === undefined ? String(typeof v) : json;
}

/** The value as a name when it is one (a string, or a number a model wrote for an id). */
export function nameOf(v: unknown): string | undefined {
  return typeof v === "string" ? v : typeof v === "number" && Number.isFinite(v) ? String(v) : undefined;
}
