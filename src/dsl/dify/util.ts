/** Small object helpers. Keys come from untrusted YAML (`__proto__` included), so objects are built with
 * `Object.fromEntries` / spreads, which define own properties, never with `obj[key] = value`. */

export type Json = Record<string, unknown>;

export function isRecord(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export function omit(obj: Json, keys: readonly string[]): Json {
  // A loop, not entries → filter → fromEntries (every node's config and canvas passes here: that chain was a
  // tenth of an import). On a plain object only `__proto__` is not an own property when assigned, so that
  // one key is defined; every other assignment defines an own property as fromEntries does.
  const out: Json = {};
  for (const k of Object.keys(obj)) {
    if (keys.includes(k)) continue;
    if (k === "__proto__")
      Object.defineProperty(out, k, { value: obj[k], enumerable: true, writable: true, configurable: true });
    else out[k] = obj[k];
  }
  return out;
}

/** No own enumerable key (without listing the keys as `Object.keys(obj).length` does). */
export function isEmpty(obj: Json): boolean {
  for (const k in obj) if (Object.hasOwn(obj, k)) return false;
  return true;
}

export function pick(obj: Json, keys: readonly string[]): Json {
  return Object.fromEntries(Object.entries(obj).filter(([k]) => keys.includes(k)));
}

export function has(obj: Json, key: string): boolean {
  return Object.hasOwn(obj, key);
}

/**
 * Add `key: value` to `obj` itself when the key is absent: only for an object the caller made (a copy) and a
 * key named in the code (never one read from the file, which could be `__proto__`).
 */
export function setDefault(obj: Json, key: string, value: unknown): void {
  if (!Object.hasOwn(obj, key)) obj[key] = value;
}

/** Add `key: value` only when the key is absent. */
export function withDefault(obj: Json, key: string, value: unknown): Json {
  return has(obj, key) ? obj : { ...obj, [key]: value };
}

export interface Point {
  x: number;
  y: number;
}

export function isPoint(v: unknown): v is Point {
  return isRecord(v) && Number.isFinite(v.x) && Number.isFinite(v.y);
}

export function finiteOr(v: unknown, fallback: number): number {
  return typeof v === "number" && Number.isFinite(v) ? v : fallback;
}
