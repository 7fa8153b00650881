/**
 * How deep untrusted JSON may nest before anything recursive (schema checks, repairs, the compact
 * converter, JSON.stringify into the store) walks it and overflows the stack: request bodies at the
 * server's door (400) and model answers (answer.too_deep). Workflows nest about 12 levels; inputs far less.
 */
export const MAX_JSON_DEPTH = 64;

/** The path of the first value nested deeper than `max` (e.g. `inputs.doc[0][0]…`), or undefined. Iterative. */
export function tooDeepAt(value: unknown, max = MAX_JSON_DEPTH): string | undefined {
  const stack: Array<{ v: unknown; depth: number; path: string }> = [{ v: value, depth: 0, path: "" }];
  while (stack.length > 0) {
    const { v, depth, path } = stack.pop()!;
    if (v === null || typeof v !== "object") continue;
    if (depth >= max) return path || "(body)";
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ v: v[i], depth: depth + 1, path: `${path}[${i}]` });
    } else {
      for (const [k, x] of Object.entries(v)) stack.push({ v: x, depth: depth + 1, path: path ? `${path}.${k}` : k });
    }
  }
  return undefined;
}
