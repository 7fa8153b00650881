/**
 * Two scores per output field:
 * - strict: normalised equality. Strings are trimmed, case-folded, `_`/`-` read as spaces and whitespace
 *   collapsed; numbers (or numeric strings) compare numerically (relative tolerance 1e-9); booleans accept
 *   true/false/yes/no/1/0 in any case; null-likes (null, "", none, null, na, n/a, nan, unknown) equal each other.
 * - lenient: SOP-Bench's own comparator (amazon-science/SOP-Bench evaluation/parser.py, compare_decisions), for
 *   comparison with published numbers: lowercase + strip, exact, then `_`/`-` → space, then substring
 *   containment in either direction; null-likes equal each other. Fields are found as upstream finds them: a
 *   `decisions` object in the prediction is read instead of the prediction itself, the first key equal to
 *   the column ignoring case only (not separators) is taken, and a field whose predicted value is null
 *   counts as missing (a mismatch, even against a null-like label).
 * A row passes only when every output field passes.
 */

const NULL_LIKE = new Set(["", "none", "null", "na", "n/a", "nan", "unknown"]);

function text(v: unknown): string {
  if (v === null || v === undefined) return "";
  if (typeof v === "boolean") return v ? "true" : "false";
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}

export function normalise(v: unknown): string {
  return text(v).trim().toLowerCase().replace(/[_-]/g, " ").replace(/\s+/g, " ").trim();
}

const isNullLike = (v: unknown) => v === null || v === undefined || NULL_LIKE.has(text(v).trim().toLowerCase());
const BOOL: Record<string, boolean> = { true: true, yes: true, "1": true, false: false, no: false, "0": false };
const asNumber = (v: unknown): number | undefined => {
  if (typeof v === "number") return v;
  if (typeof v === "string" && /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/.test(v)) return Number(v);
  return undefined;
};

export function strictEqual(predicted: unknown, expected: unknown): boolean {
  if (isNullLike(expected) || isNullLike(predicted)) return isNullLike(expected) && isNullLike(predicted);
  if (typeof expected === "boolean" || typeof predicted === "boolean") {
    const p = BOOL[normalise(predicted)];
    const e = BOOL[normalise(expected)];
    return p !== undefined && p === e;
  }
  const pn = asNumber(predicted);
  const en = asNumber(expected);
  if (pn !== undefined && en !== undefined) return Math.abs(pn - en) <= 1e-9 * Math.max(1, Math.abs(en));
  return normalise(predicted) === normalise(expected);
}

export function lenientEqual(predicted: unknown, expected: unknown): boolean {
  const p = text(predicted).toLowerCase().trim();
  const e = text(expected).toLowerCase().trim();
  if (NULL_LIKE.has(p) || NULL_LIKE.has(e)) return NULL_LIKE.has(p) && NULL_LIKE.has(e);
  if (p === e) return true;
  const p2 = p.replace(/[_-]/g, " ");
  const e2 = e.replace(/[_-]/g, " ");
  if (p2 === e2) return true;
  return p2.includes(e2) || e2.includes(p2);
}

export interface FieldScore {
  expected: unknown;
  predicted: unknown;
  strict: boolean;
  lenient: boolean;
}

export interface RowScore {
  taskId: string;
  strict: boolean;
  lenient: boolean;
  fields: Record<string, FieldScore>;
  /** Set when the solver threw: the row scores 0 on both. */
  error?: string;
}

const keyOf = (k: string) => k.toLowerCase().replace(/[\s_-]+/g, "");

/** The predicted value of one column as SOP-Bench's multi-field comparison looks it up; undefined = missing. */
function upstreamField(predicted: Record<string, unknown>, col: string): unknown {
  const decisions = predicted.decisions;
  const values =
    decisions && typeof decisions === "object" && !Array.isArray(decisions)
      ? (decisions as Record<string, unknown>)
      : predicted;
  const hit = Object.entries(values).find(([k]) => k.toLowerCase() === col.toLowerCase());
  return hit === undefined || hit[1] === null ? undefined : hit[1];
}

/** Finds each output column in the prediction, matching keys case- and separator-insensitively. */
export function scoreRow(
  taskId: string,
  expected: Record<string, unknown>,
  predicted: Record<string, unknown> | undefined,
  error?: string,
): RowScore {
  const byKey = new Map<string, unknown>();
  for (const [k, v] of Object.entries(predicted ?? {})) byKey.set(keyOf(k), v);
  const fields: Record<string, FieldScore> = {};
  for (const [col, exp] of Object.entries(expected)) {
    const pred = byKey.get(keyOf(col));
    const missing = !byKey.has(keyOf(col)) || error !== undefined;
    const upstream = error === undefined && predicted ? upstreamField(predicted, col) : undefined;
    fields[col] = {
      expected: exp,
      predicted: pred,
      strict: !missing && strictEqual(pred, exp),
      lenient: upstream !== undefined && lenientEqual(upstream, exp),
    };
  }
  const all = Object.values(fields);
  return {
    taskId,
    strict: all.every((f) => f.strict),
    lenient: all.every((f) => f.lenient),
    fields,
    ...(error !== undefined ? { error } : {}),
  };
}

export interface DomainScore {
  domain: string;
  n: number;
  strictCorrect: number;
  lenientCorrect: number;
  /** strictCorrect / n */
  strict: number;
  lenient: number;
  /** Rows whose solver threw. */
  errors: number;
  /** Per output column: rows whose field matched strictly. */
  perField: Record<string, number>;
  rows: RowScore[];
}

export function aggregate(domain: string, rows: RowScore[]): DomainScore {
  const n = rows.length;
  const strictCorrect = rows.filter((r) => r.strict).length;
  const lenientCorrect = rows.filter((r) => r.lenient).length;
  const perField: Record<string, number> = {};
  for (const r of rows)
    for (const [c, f] of Object.entries(r.fields)) perField[c] = (perField[c] ?? 0) + (f.strict ? 1 : 0);
  return {
    domain,
    n,
    strictCorrect,
    lenientCorrect,
    strict: n ? strictCorrect / n : 0,
    lenient: n ? lenientCorrect / n : 0,
    errors: rows.filter((r) => r.error !== undefined).length,
    perField,
    rows,
  };
}
