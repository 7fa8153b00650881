/**
 * Three-way merge of a node config: `base` is the stored config, `shown` what the projection's compact
 * form reads back as, `answer` what the model's compact form reads back as. Only what differs between
 * `shown` and `answer` — what the model changed — reaches the result; everything else is the base's,
 * including every field the compact form never showed.
 *
 * Lists are aligned element by element (longest common subsequence), so adding a start input or an
 * if-else case keeps every other element's stored details. Identity keys (`case_id`, `id`) that the
 * compact form numbers by position are taken from the base for kept elements and made fresh for new ones.
 */
import { randomUUID } from "node:crypto";
import { deepEqual, isPlainObject, type JsonObject, setOwn } from "../../util/json.js";

const IDENTITY_KEYS = ["case_id", "id"] as const;

const withoutIdentity = (v: unknown): unknown => {
  if (!isPlainObject(v)) return v;
  const out: JsonObject = {};
  for (const [k, x] of Object.entries(v)) if (!(IDENTITY_KEYS as readonly string[]).includes(k)) setOwn(out, k, x);
  return out;
};

/** Index pairs (i in a, j in b) of a longest common subsequence under `eq`. */
function lcs<T>(a: readonly T[], b: readonly T[], eq: (x: T, y: T) => boolean): Array<[number, number]> {
  const n = a.length;
  const m = b.length;
  const len: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      len[i]![j] = eq(a[i]!, b[j]!) ? len[i + 1]![j + 1]! + 1 : Math.max(len[i + 1]![j]!, len[i]![j + 1]!);
  const pairs: Array<[number, number]> = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (eq(a[i]!, b[j]!)) {
      pairs.push([i, j]);
      i++;
      j++;
    } else if (len[i + 1]![j]! >= len[i]![j + 1]!) i++;
    else j++;
  }
  return pairs;
}

/** A fresh identity value in the style of the existing ones (numbers, UUIDs or `case_<n>`). */
function freshIdentity(key: string, taken: Set<string>): string {
  const values = [...taken];
  if (values.length > 0 && values.every((v) => /^\d+$/.test(v))) {
    let n = Math.max(...values.map(Number)) + 1;
    while (taken.has(String(n))) n++;
    return String(n);
  }
  if (values.length > 0 && values.some((v) => /^[0-9a-f]{8}-[0-9a-f]{4}-/.test(v))) return randomUUID();
  const prefix = key === "case_id" ? "case" : "item";
  let k = taken.size + 1;
  while (taken.has(`${prefix}_${k}`)) k++;
  return `${prefix}_${k}`;
}

/** `answer` with the identity keys of `shown` (the positional numbering) replaced by the base's. */
function pinIdentity(base: unknown, shown: unknown, answer: unknown): unknown {
  if (!isPlainObject(answer) || !isPlainObject(shown)) return answer;
  const out: JsonObject = { ...answer };
  for (const k of IDENTITY_KEYS) {
    if (!Object.hasOwn(shown, k) || !Object.hasOwn(answer, k)) continue;
    setOwn(out, k, isPlainObject(base) && Object.hasOwn(base, k) ? base[k] : shown[k]);
  }
  return out;
}

function mergeList(base: unknown[], shown: unknown[], answer: unknown[]): unknown[] {
  // The base and its projection must correspond element by element, or alignment means nothing.
  if (base.length !== shown.length) return answer;
  const pairs = lcs(shown, answer, (x, y) => deepEqual(withoutIdentity(x), withoutIdentity(y)));
  const out: unknown[] = [];
  const fresh: number[] = [];
  let i = 0;
  let j = 0;
  const gap = (iEnd: number, jEnd: number) => {
    // Within a gap, the k-th removed and the k-th inserted element are one element changed in place.
    while (i < iEnd && j < jEnd) {
      out.push(merge(base[i], shown[i], pinIdentity(base[i], shown[i], answer[j])));
      i++;
      j++;
    }
    for (; j < jEnd; j++) {
      fresh.push(out.length);
      out.push(answer[j]);
    }
    i = iEnd;
  };
  for (const [pi, aj] of pairs) {
    gap(pi, aj);
    out.push(merge(base[pi], shown[pi], pinIdentity(base[pi], shown[pi], answer[aj])));
    i = pi + 1;
    j = aj + 1;
  }
  gap(shown.length, answer.length);
  return freshen(out, fresh);
}

/** New elements whose positional identity collides with a kept element's get a fresh one. */
function freshen(out: unknown[], fresh: number[]): unknown[] {
  for (const key of IDENTITY_KEYS) {
    const taken = new Set(
      out.flatMap((x, idx) =>
        !fresh.includes(idx) && isPlainObject(x) && typeof x[key] === "string" ? [x[key] as string] : [],
      ),
    );
    for (const idx of fresh) {
      const x = out[idx];
      if (!isPlainObject(x) || typeof x[key] !== "string") continue;
      if (taken.has(x[key] as string) || x[key] === "false") {
        const v = freshIdentity(key, taken);
        out[idx] = { ...x, [key]: v };
        taken.add(v);
      } else taken.add(x[key] as string);
    }
  }
  return out;
}

function mergeObject(base: JsonObject, shown: JsonObject, answer: JsonObject): JsonObject {
  const out: JsonObject = {};
  const keys = [...new Set([...Object.keys(base), ...Object.keys(answer)])];
  for (const k of keys) {
    const inS = Object.hasOwn(shown, k);
    const inA = Object.hasOwn(answer, k);
    const inB = Object.hasOwn(base, k);
    if (inS && inA) {
      if (deepEqual(shown[k], answer[k])) {
        if (inB) setOwn(out, k, base[k]);
      } else setOwn(out, k, inB ? merge(base[k], shown[k], answer[k]) : answer[k]);
    } else if (inA) setOwn(out, k, answer[k]);
    else if (!inS && inB) setOwn(out, k, base[k]);
    // shown but not answered: the model removed it.
  }
  return out;
}

export function merge(base: unknown, shown: unknown, answer: unknown): unknown {
  if (deepEqual(shown, answer)) return base;
  if (Array.isArray(base) && Array.isArray(shown) && Array.isArray(answer)) return mergeList(base, shown, answer);
  if (isPlainObject(base) && isPlainObject(shown) && isPlainObject(answer)) return mergeObject(base, shown, answer);
  return answer;
}

export function mergeConfig(base: JsonObject, shown: JsonObject, answer: JsonObject): JsonObject {
  return merge(base, shown, answer) as JsonObject;
}
