/** Small object helpers. Keys come from untrusted YAML (`__proto__` included), so objects are built with
 * `Object.fromEntries` / spreads, which define own properties, never with `obj[key] = value`. */

export type Json = Record<string, unknown>;

export function isRecord(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export function omit(obj: Json, keys: readonly string[]): Json {
  return Object.fromEntries(Object.entries(obj).filter(([k]) => !keys.includes(k)));
}

export function pick(obj: Json, keys: readonly string[]): Json {
  return Object.fromEntries(Object.entries(obj).filter(([k]) => keys.includes(k)));
}

export function has(obj: Json, key: string): boolean {
  return Object.hasOwn(obj, key);
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
