/**
 * `structuredClone` with a fast path for what run records almost always are: plain objects, arrays and
 * primitives. structuredClone serialises and deserialises even a three-field object, which made copying
 * records the largest share of the in-memory store's cost. Anything else — a Date, a Map, a typed array, an
 * object with another prototype, a cycle or a structure deeper than the walk allows, a function (which
 * structuredClone refuses), a "__proto__" key — sends the whole value to structuredClone, so the result and the
 * errors are structuredClone's. One difference: named (non-index) properties of an array are not copied;
 * records are JSON-shaped and never carry them.
 */
export function cloneRecord<T>(value: T): T {
  const out = copyPlain(value, 0);
  return (out === NOT_PLAIN ? structuredClone(value) : out) as T;
}

const NOT_PLAIN: unique symbol = Symbol("not plain");
/** Deeper than this is treated as possibly cyclic and left to structuredClone. */
const MAX_DEPTH = 64;

function copyPlain(v: unknown, depth: number): unknown {
  if (v === null || (typeof v !== "object" && typeof v !== "function")) {
    // bigint and symbol: symbols are refused by structuredClone, bigints copied; both stay its job.
    return typeof v === "symbol" ? NOT_PLAIN : v;
  }
  if (typeof v === "function" || depth > MAX_DEPTH) return NOT_PLAIN;
  if (Array.isArray(v)) {
    if (Object.getPrototypeOf(v) !== Array.prototype) return NOT_PLAIN;
    const out = new Array<unknown>(v.length);
    for (let i = 0; i < v.length; i++) {
      // A hole would become undefined here but stay a hole in structuredClone.
      if (!(i in v)) return NOT_PLAIN;
      const x = copyPlain(v[i], depth + 1);
      if (x === NOT_PLAIN) return NOT_PLAIN;
      out[i] = x;
    }
    return out;
  }
  const proto = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return NOT_PLAIN;
  const out: Record<string, unknown> = {};
  for (const k in v) {
    // Assigning "__proto__" would set the copy's prototype instead of a key (JSON.parse makes it a key).
    if (k === "__proto__") return NOT_PLAIN;
    const x = copyPlain((v as Record<string, unknown>)[k], depth + 1);
    if (x === NOT_PLAIN) return NOT_PLAIN;
    out[k] = x;
  }
  return out;
}
