/**
 * FlowScout tool-invocation correctness:
 *   TC_i = |LCS(R_i, Ĥ_i)| / max(K_i, K̂_i), averaged over tasks,
 * where two invocations are equal iff their tool names are equal and their arguments are equal as
 * canonical JSON (objects compared with key order ignored, arrays in order, numbers by value, and no
 * type coercion: "5" ≠ 5). Pinned policies (METRICS.md §2.2 marks them [confirm]):
 * - K = K̂ = 0 → TC = 1 (nothing was required and nothing was called); exactly one side empty → 0;
 * - the `Finish` call is excluded by default (its final_answer text essentially never matches);
 *   `finish: "return-type"` keeps it and compares only `return_type`; `finish: "keep"` compares it fully;
 * - names are compared after trimming (optionally lowercased); arguments given as a JSON string are
 *   parsed, a string that is not JSON is compared verbatim; missing/null/"" arguments equal {}.
 */
import { MetricCodes, MetricInputError } from "./errors.js";

export interface ToolCallRecord {
  name: string;
  /** Object, or a JSON string of one (ToolBench stores arguments as JSON text). */
  arguments?: unknown;
}

export interface TcOptions {
  finish?: "exclude" | "return-type" | "keep";
  finishName?: string;
  lowercaseNames?: boolean;
}

export interface TcResult {
  tc: number;
  lcs: number;
  /** Reference length K and predicted length K̂ after the Finish policy. */
  k: number;
  kHat: number;
}

/** Deterministic JSON text with object keys sorted at every level. */
export function canonicalJson(v: unknown): string {
  if (v === null || typeof v !== "object") {
    if (typeof v === "number" && !Number.isFinite(v)) return JSON.stringify(String(v));
    if (v === undefined) return "null";
    if (typeof v === "bigint") return v.toString();
    return JSON.stringify(v);
  }
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(",")}]`;
  const keys = Object.keys(v as Record<string, unknown>)
    .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((v as Record<string, unknown>)[k])}`).join(",")}}`;
}

export function canonicalArguments(args: unknown): string {
  if (args === undefined || args === null) return "{}";
  if (typeof args === "string") {
    const t = args.trim();
    if (t === "") return "{}";
    try {
      return canonicalJson(JSON.parse(t));
    } catch {
      return `raw:${t}`;
    }
  }
  return canonicalJson(args);
}

function prepare(calls: readonly ToolCallRecord[], opts: TcOptions, role: string): string[] {
  const finishName = opts.finishName ?? "Finish";
  const policy = opts.finish ?? "exclude";
  if (!Array.isArray(calls)) {
    throw new MetricInputError(MetricCodes.invalidArgument, `${role}: expected an array of tool calls`, {
      field: role,
    });
  }
  const out: string[] = [];
  for (const [i, c] of calls.entries()) {
    if (!c || typeof c.name !== "string") {
      throw new MetricInputError(MetricCodes.invalidArgument, `${role}[${i}]: tool call without a string name`, {
        field: `${role}[${i}].name`,
      });
    }
    let name = c.name.trim();
    if (opts.lowercaseNames) name = name.toLowerCase();
    let args = canonicalArguments(c.arguments);
    if (c.name.trim() === finishName) {
      if (policy === "exclude") continue;
      if (policy === "return-type") {
        const parsed = args.startsWith("raw:") ? {} : (JSON.parse(args) as Record<string, unknown>);
        args = canonicalJson({ return_type: parsed?.return_type ?? null });
      }
    }
    out.push(`${JSON.stringify(name)}|${args}`);
  }
  return out;
}

export function lcsLength<T>(
  a: readonly T[],
  b: readonly T[],
  eq: (x: T, y: T) => boolean = (x, y) => x === y,
): number {
  let prev = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    const cur = new Array<number>(b.length + 1).fill(0);
    for (let j = 1; j <= b.length; j++) {
      cur[j] = eq(a[i - 1]!, b[j - 1]!) ? prev[j - 1]! + 1 : Math.max(prev[j]!, cur[j - 1]!);
    }
    prev = cur;
  }
  return prev[b.length]!;
}

export function toolCorrectness(
  reference: readonly ToolCallRecord[],
  predicted: readonly ToolCallRecord[],
  opts: TcOptions = {},
): TcResult {
  const r = prepare(reference, opts, "reference");
  const h = prepare(predicted, opts, "predicted");
  if (r.length === 0 && h.length === 0) return { tc: 1, lcs: 0, k: 0, kHat: 0 };
  const lcs = lcsLength(r, h);
  return { tc: lcs / Math.max(r.length, h.length), lcs, k: r.length, kHat: h.length };
}

export function meanToolCorrectness(
  tasks: ReadonlyArray<{ reference: readonly ToolCallRecord[]; predicted: readonly ToolCallRecord[] }>,
  opts: TcOptions = {},
): { mean: number; perTask: TcResult[] } {
  const perTask = tasks.map((t) => toolCorrectness(t.reference, t.predicted, opts));
  return { mean: perTask.length === 0 ? 0 : perTask.reduce((s, x) => s + x.tc, 0) / perTask.length, perTask };
}
