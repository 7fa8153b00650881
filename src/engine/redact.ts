/** What a secret's clear text is replaced with wherever a run is recorded or reported. */
export const REDACTED = "[secret]";

/** Replaces every occurrence of any of `secrets` in strings of a JSON-like value; the input is never changed. */
export type Redactor = <T>(v: T) => T;

export const noRedaction: Redactor = (v) => v;

/**
 * A redactor for these clear texts (empty ones ignored). Longest first, so a secret that contains another is
 * replaced whole. Strings are replaced anywhere inside a value (a header "Bearer <secret>", an error message);
 * a value derived otherwise (hashed, encoded) cannot be recognised and is not.
 */
export function redactorFor(secrets: Iterable<string>): Redactor {
  const list = [...new Set([...secrets].filter((s) => s.length > 0))].sort((a, b) => b.length - a.length);
  if (list.length === 0) return noRedaction;
  const scrub = (s: string): string => {
    let out = s;
    for (const secret of list) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    return out;
  };
  const walk = (v: unknown, seen: WeakMap<object, unknown>): unknown => {
    if (typeof v === "string") return scrub(v);
    if (v === null || typeof v !== "object") return v;
    if (seen.has(v)) return seen.get(v);
    if (Array.isArray(v)) {
      const out: unknown[] = [];
      seen.set(v, out);
      for (const x of v) out.push(walk(x, seen));
      return out;
    }
    if (v instanceof Uint8Array || v instanceof Date) return v;
    const out: Record<string, unknown> = {};
    seen.set(v, out);
    for (const [k, x] of Object.entries(v)) out[scrub(k)] = walk(x, seen);
    return out;
  };
  return <T>(v: T): T => walk(v, new WeakMap()) as T;
}
