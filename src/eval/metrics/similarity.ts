/**
 * Pluggable text similarity for WorfEval node matching. Every result records `similarity.name`,
 * because f1 numbers are only comparable under the same similarity.
 */
import { NotConfiguredError } from "../../ir/errors.js";
import type { LlmService, ModelRef } from "../../ir/services.js";
import { MetricCodes, MetricInputError } from "./errors.js";

export type SimMatrix = number[][];

export interface Similarity {
  readonly name: string;
  /** Pairwise score; higher = more similar. Offline similarities implement this. */
  score?(a: string, b: string): number;
  /** Whole matrix at once (rows = a, cols = b). Embedding similarities implement this (one embed call). */
  batch?(a: readonly string[], b: readonly string[]): SimMatrix | Promise<SimMatrix>;
}

/** rows = a, cols = b. Uses `batch` when present so embedders are called once per pair of lists. */
export async function similarityMatrix(
  sim: Similarity,
  a: readonly string[],
  b: readonly string[],
): Promise<SimMatrix> {
  let m: SimMatrix;
  if (sim.batch) m = await sim.batch(a, b);
  else if (sim.score) {
    const score = sim.score.bind(sim);
    m = a.map((x) => b.map((y) => score(x, y)));
  } else {
    throw new MetricInputError(
      MetricCodes.invalidSimilarity,
      `similarity "${sim.name}" has neither score() nor batch()`,
      {
        similarity: sim.name,
      },
    );
  }
  assertMatrixShape(m, a.length, b.length, sim.name);
  return m;
}

export function assertMatrixShape(m: unknown, rows: number, cols: number, source: string): asserts m is SimMatrix {
  const bad = (reason: string): never => {
    throw new MetricInputError(MetricCodes.invalidMatrix, `similarity matrix from "${source}": ${reason}`, {
      source,
      rows,
      cols,
    });
  };
  if (!Array.isArray(m) || m.length !== rows) bad(`expected ${rows} rows`);
  for (const [i, row] of (m as unknown[]).entries()) {
    if (!Array.isArray(row) || row.length !== cols) bad(`row ${i}: expected ${cols} columns`);
    for (const v of row as unknown[]) if (typeof v !== "number" || Number.isNaN(v)) bad(`row ${i}: non-numeric entry`);
  }
}

/**
 * `bow_cosine_v1`, the stand-in the staged WorfEval reference vectors were produced with:
 * tokens = set of lowercase [a-z0-9]+ runs; sim = |A∩B| / sqrt(|A|·|B|); 0 if either set is empty.
 */
export const bowCosineV1: Similarity = {
  name: "bow_cosine_v1",
  score(a, b) {
    const A = bowTokens(a);
    const B = bowTokens(b);
    if (A.size === 0 || B.size === 0) return 0;
    let inter = 0;
    for (const t of A) if (B.has(t)) inter++;
    return inter / Math.sqrt(A.size * B.size);
  },
};

function bowTokens(s: string): Set<string> {
  return new Set(s.toLowerCase().match(/[a-z0-9]+/g) ?? []);
}

/**
 * Offline default: mean of two cosines over term-frequency vectors of the *normalised* text.
 * Normalisation: Unicode NFKC → lowercase → every character that is not a letter (\p{L}) or a
 * number (\p{N}) becomes a space → whitespace runs collapse to one space → trim.
 * - token cosine: TF vector of the space-separated words;
 * - character cosine: TF vector of character trigrams of " " + normalised + " " (the padding lets
 *   1–2 letter words and word boundaries count, and makes inflections like "file"/"files" overlap).
 * Either side empty after normalisation → 0. Identical normalised texts → 1.
 */
export const tokenCharCosine: Similarity = {
  name: "token_char3_cosine_v1",
  score(a, b) {
    const na = normaliseText(a);
    const nb = normaliseText(b);
    if (na === "" || nb === "") return 0;
    if (na === nb) return 1;
    return (tfCosine(na.split(" "), nb.split(" ")) + tfCosine(charGrams(na, 3), charGrams(nb, 3))) / 2;
  },
};

export function normaliseText(s: string): string {
  return s
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .replace(/\s+/g, " ")
    .trim();
}

function charGrams(s: string, n: number): string[] {
  const chars = Array.from(` ${s} `);
  const out: string[] = [];
  for (let i = 0; i + n <= chars.length; i++) out.push(chars.slice(i, i + n).join(""));
  return out;
}

function tfCosine(a: readonly string[], b: readonly string[]): number {
  const ta = tf(a);
  const tb = tf(b);
  let dot = 0;
  for (const [k, v] of ta) dot += v * (tb.get(k) ?? 0);
  if (dot === 0) return 0;
  return dot / (norm(ta) * norm(tb));
}

function tf(xs: readonly string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const x of xs) m.set(x, (m.get(x) ?? 0) + 1);
  return m;
}

function norm(m: Map<string, number>): number {
  let s = 0;
  for (const v of m.values()) s += v * v;
  return Math.sqrt(s);
}

export type EmbedFn = (texts: string[]) => Promise<number[][]>;

/** EmbedFn over an LlmService; NotConfiguredError when the service has no embed(). */
export function llmEmbedder(llm: LlmService, model?: ModelRef): EmbedFn {
  if (typeof llm.embed !== "function") {
    throw new NotConfiguredError(
      "metric.embedding_not_configured",
      "the LLM service has no embed(); embedding similarity needs one",
      {
        model: model?.name,
      },
    );
  }
  const embed = llm.embed.bind(llm);
  return (texts) => embed(texts, model);
}

/**
 * Cosine of embeddings from `embed` (e.g. `texts => llm.embed!(texts, model)`). Upstream WorfEval uses
 * all-mpnet-base-v2; pass a name that says which model, so results say what they were computed with.
 * Distinct texts are embedded once per call (and cached across calls unless `cache: false`).
 */
export function embeddingSimilarity(embed: EmbedFn, opts: { name: string; cache?: boolean }): Similarity {
  const cache = new Map<string, number[]>();
  const useCache = opts.cache !== false;
  const name = `embedding:${opts.name}`;
  return {
    name,
    async batch(a, b) {
      const wanted = [...new Set([...a, ...b])].filter((t) => !(useCache && cache.has(t)));
      const local = new Map<string, number[]>();
      if (wanted.length > 0) {
        const vecs = await embed(wanted);
        if (!Array.isArray(vecs) || vecs.length !== wanted.length) {
          throw new MetricInputError(
            MetricCodes.invalidEmbedding,
            `${name}: embed() returned ${Array.isArray(vecs) ? vecs.length : "no"} vectors for ${wanted.length} texts`,
            { similarity: name },
          );
        }
        let dim = -1;
        for (const [i, v] of vecs.entries()) {
          if (!Array.isArray(v) || v.length === 0 || v.some((x) => typeof x !== "number" || !Number.isFinite(x))) {
            throw new MetricInputError(MetricCodes.invalidEmbedding, `${name}: vector ${i} is not a finite number[]`, {
              similarity: name,
              index: i,
            });
          }
          if (dim === -1) dim = v.length;
          else if (v.length !== dim) {
            throw new MetricInputError(
              MetricCodes.invalidEmbedding,
              `${name}: vector ${i} has ${v.length} dims, expected ${dim}`,
              {
                similarity: name,
                index: i,
              },
            );
          }
          const t = wanted[i]!;
          local.set(t, v);
          if (useCache) cache.set(t, v);
        }
      }
      const get = (t: string) => local.get(t) ?? cache.get(t)!;
      return a.map((x) => b.map((y) => cosine(get(x), get(y))));
    },
  };
}

export function cosine(u: readonly number[], v: readonly number[]): number {
  if (u.length !== v.length) {
    throw new MetricInputError(MetricCodes.invalidEmbedding, `cosine of vectors with ${u.length} and ${v.length} dims`);
  }
  let dot = 0;
  let nu = 0;
  let nv = 0;
  for (let i = 0; i < u.length; i++) {
    const a = u[i]!;
    const b = v[i]!;
    dot += a * b;
    nu += a * a;
    nv += b * b;
  }
  if (nu === 0 || nv === 0) return 0;
  return dot / (Math.sqrt(nu) * Math.sqrt(nv));
}

/** A similarity backed by a fixed matrix over known node lists (tests, replaying stored matrices). */
export function precomputedSimilarity(
  name: string,
  rows: readonly string[],
  cols: readonly string[],
  m: SimMatrix,
): Similarity {
  assertMatrixShape(m, rows.length, cols.length, name);
  return {
    name,
    batch(a, b) {
      const idx = (list: readonly string[], all: readonly string[], side: string) =>
        list.map((t, k) => {
          // Position-aligned lookup first: duplicate texts may legitimately have different rows.
          if (list.length === all.length && all[k] === t) return k;
          const i = all.indexOf(t);
          if (i < 0) throw new MetricInputError(MetricCodes.invalidSimilarity, `${name}: unknown ${side} text "${t}"`);
          return i;
        });
      const ri = idx(a, rows, "row");
      const ci = idx(b, cols, "column");
      return ri.map((i) => ci.map((j) => m[i]![j]!));
    },
  };
}
