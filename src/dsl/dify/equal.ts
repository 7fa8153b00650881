import type { Workflow } from "../../ir/workflow.js";

/**
 * The first place two values differ, as a path (`nodes[3].config.model`), or undefined when they are deeply
 * equal. Key order does not matter; NaN equals NaN; -0 and 0 differ (as in a JSON-free deep equality).
 */
export function firstDifference(a: unknown, b: unknown, path = ""): string | undefined {
  if (Object.is(a, b)) return undefined;
  const here = path || "(root)";
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) {
    return `${here}: ${show(a)} ≠ ${show(b)}`;
  }
  if (Array.isArray(a) !== Array.isArray(b)) return `${here}: list ≠ mapping`;
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return `${here}: ${a.length} items ≠ ${b.length} items`;
    for (let i = 0; i < a.length; i++) {
      const d = firstDifference(a[i], b[i], `${path}[${i}]`);
      if (d) return d;
    }
    return undefined;
  }
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  const keys = new Set([...Object.keys(ra), ...Object.keys(rb)]);
  for (const k of keys) {
    const sub = path ? `${path}.${k}` : k;
    if (Object.hasOwn(ra, k) !== Object.hasOwn(rb, k))
      return `${sub}: ${Object.hasOwn(ra, k) ? "only in the first" : "only in the second"}`;
    const d = firstDifference(ra[k], rb[k], sub);
    if (d) return d;
  }
  return undefined;
}

function show(v: unknown): string {
  const s = typeof v === "string" ? JSON.stringify(v) : String(v);
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}

/** Two workflows are the same IR (what a lossless round trip must give). */
export function semanticEqual(a: Workflow, b: Workflow): boolean {
  return firstDifference(a, b) === undefined;
}
