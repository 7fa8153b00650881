/**
 * Execution score (ES), G-Eval style: an LLM judge rates an output on four dimensions — correctness,
 * completeness, relevance, clarity — each an integer 1–5, mapped to [0,1] by (s − 1)/4; ES is the mean
 * of the four. With `samples` > 1 the judge is called repeatedly and each dimension is the mean of
 * the samples (G-Eval's fallback when token log-probabilities are unavailable, n = 20 in the paper);
 * `esFromDistributions` does the log-prob weighting when a provider does expose them.
 * The prompt is src/eval/prompts/es-judge.md.
 */
import { jsonrepair } from "jsonrepair";
import type { LlmService, ModelRef } from "../../ir/services.js";
import { MetricCodes, MetricInputError } from "./errors.js";
import { loadPrompt, renderTemplate } from "./prompt.js";

export const ES_DIMENSIONS = ["correctness", "completeness", "relevance", "clarity"] as const;
export type EsDimension = (typeof ES_DIMENSIONS)[number];
export type EsScores = Record<EsDimension, number>;

/** A judge returns the model's raw reply for a rendered prompt. */
export type JudgeFn = (req: { prompt: string }) => Promise<string>;

export interface EsInput {
  task: string;
  output: string;
  reference?: string;
}

export interface EsResult {
  es: number;
  /** Per dimension, in [0,1]. */
  dimensions: EsScores;
  /** Raw 1–5 ratings of each sample. */
  samples: EsScores[];
}

export function buildEsPrompt(input: EsInput): string {
  return renderTemplate(loadPrompt("es-judge"), {
    task: input.task,
    output: input.output,
    reference: input.reference ?? "",
  });
}

/**
 * Scale a rating to [0,1]. A bare number is on the prompt's 1–5 scale: (s − 1)/4. A fraction "x/y" is read
 * as a rating on a 1–y scale, scaled the same way: (x − 1)/(y − 1), so "3/5" and "3" agree (0.5), "6/10"
 * gives 5/9, and a lower rating never scores higher on a finer scale ("1/10" = "1/5" = 0). A rating below
 * 1 or above its scale is an error naming the dimension, never clamped.
 */
function toUnit(raw: number, denominator: number | undefined, dim: string): number {
  if (!Number.isFinite(raw))
    throw new MetricInputError(MetricCodes.judgeOutput, `${dim}: rating is not a number`, { field: dim });
  const top = denominator ?? 5;
  if (!Number.isFinite(top) || top <= 1)
    throw new MetricInputError(MetricCodes.judgeOutput, `${dim}: rating scale /${denominator} has no range`, {
      field: dim,
    });
  if (raw < 1 || raw > top)
    throw new MetricInputError(
      MetricCodes.judgeOutput,
      `${dim}: rating ${raw}${denominator !== undefined ? `/${denominator}` : ""} is outside 1–${top}`,
      { field: dim },
    );
  return (raw - 1) / (top - 1);
}

function stripFences(s: string): string {
  return s.replace(/```(?:json)?/gi, " ");
}

/** Candidate JSON objects in the text, last first (the prompt asks for the object at the end). */
function jsonObjects(text: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const s = stripFences(text);
  for (let end = s.lastIndexOf("}"); end >= 0; end = s.lastIndexOf("}", end - 1)) {
    let depth = 0;
    for (let i = end; i >= 0; i--) {
      const ch = s[i];
      if (ch === "}") depth++;
      else if (ch === "{" && --depth === 0) {
        const chunk = s.slice(i, end + 1);
        for (const attempt of [() => JSON.parse(chunk), () => JSON.parse(jsonrepair(chunk))]) {
          try {
            const v = attempt();
            if (v && typeof v === "object" && !Array.isArray(v)) {
              out.push(v as Record<string, unknown>);
              break;
            }
          } catch {
            // try the next parse strategy / candidate
          }
        }
        break;
      }
    }
    if (out.length > 0) break;
  }
  return out;
}

function ratingFrom(v: unknown): { raw: number; den?: number } | undefined {
  if (typeof v === "number") return { raw: v };
  if (typeof v === "string") {
    const m = v.match(/(-?\d+(?:\.\d+)?)\s*(?:\/\s*(\d+(?:\.\d+)?))?/);
    if (m) return { raw: Number(m[1]), den: m[2] === undefined ? undefined : Number(m[2]) };
  }
  if (v && typeof v === "object") {
    const o = v as Record<string, unknown>;
    for (const k of ["score", "rating", "value"]) if (k in o) return ratingFrom(o[k]);
  }
  return undefined;
}

/**
 * Parses a judge reply into raw 1–5 ratings. Accepts, in order of preference: a JSON object (possibly
 * fenced, trailing-comma'd or with single quotes — repaired with jsonrepair) whose keys are the
 * dimensions in any case, with values like 4, "4", "4/5" or {"score": 4}; otherwise lines such as
 * "Correctness: 4", "**Clarity** - 3/5". A missing dimension or an out-of-range rating is a
 * `metric.judge_output_unparseable` error naming the dimension.
 */
export function parseEsJudgeOutput(text: string): { raw: EsScores; unit: EsScores } {
  const raw = {} as EsScores;
  const unit = {} as EsScores;
  const obj = jsonObjects(text)[0];
  const lowerObj = new Map<string, unknown>();
  if (obj) for (const [k, v] of Object.entries(obj)) lowerObj.set(k.trim().toLowerCase(), v);
  for (const dim of ES_DIMENSIONS) {
    let r = lowerObj.has(dim) ? ratingFrom(lowerObj.get(dim)) : undefined;
    if (!r) {
      const re = new RegExp(
        `${dim}\\W{0,6}?(?:score|rating)?\\W{0,4}?[:=\\-–]\\s*\\**\\s*(\\d+(?:\\.\\d+)?)(?:\\s*/\\s*(\\d+(?:\\.\\d+)?))?`,
        "gi",
      );
      let last: RegExpExecArray | null = null;
      for (let m = re.exec(text); m; m = re.exec(text)) last = m;
      if (last) r = { raw: Number(last[1]), den: last[2] === undefined ? undefined : Number(last[2]) };
    }
    if (!r) {
      throw new MetricInputError(MetricCodes.judgeOutput, `ES judge reply has no rating for "${dim}"`, {
        field: dim,
        reply: text.slice(0, 500),
      });
    }
    unit[dim] = toUnit(r.raw, r.den, dim);
    raw[dim] = r.den !== undefined && r.den !== 5 ? 1 + 4 * unit[dim] : r.raw;
  }
  return { raw, unit };
}

export function esFromUnitScores(d: EsScores): number {
  return ES_DIMENSIONS.reduce((s, k) => s + d[k], 0) / ES_DIMENSIONS.length;
}

/** G-Eval weighting: each dimension = Σ p(s)·s over s ∈ 1..5 (probabilities renormalised), then scaled to [0,1]. */
export function esFromDistributions(dist: Record<EsDimension, Record<string, number>>): EsResult {
  const dims = {} as EsScores;
  const raw = {} as EsScores;
  for (const dim of ES_DIMENSIONS) {
    const d = dist[dim];
    if (!d)
      throw new MetricInputError(MetricCodes.invalidArgument, `no score distribution for "${dim}"`, { field: dim });
    let z = 0;
    let ev = 0;
    for (const [tok, p] of Object.entries(d)) {
      const s = Number(tok.trim());
      if (!Number.isInteger(s) || s < 1 || s > 5 || !(p >= 0)) continue;
      z += p;
      ev += p * s;
    }
    if (z === 0)
      throw new MetricInputError(MetricCodes.invalidArgument, `distribution for "${dim}" has no mass on 1–5`, {
        field: dim,
      });
    raw[dim] = ev / z;
    dims[dim] = (raw[dim] - 1) / 4;
  }
  return { es: esFromUnitScores(dims), dimensions: dims, samples: [raw] };
}

export async function executionScore(
  judge: JudgeFn,
  input: EsInput,
  opts: { samples?: number } = {},
): Promise<EsResult> {
  const n = opts.samples ?? 1;
  if (!Number.isInteger(n) || n < 1)
    throw new MetricInputError(MetricCodes.invalidArgument, "samples must be an integer ≥ 1", { field: "samples" });
  const prompt = buildEsPrompt(input);
  const samples: EsScores[] = [];
  const units: EsScores[] = [];
  for (let i = 0; i < n; i++) {
    const parsed = parseEsJudgeOutput(await judge({ prompt }));
    samples.push(parsed.raw);
    units.push(parsed.unit);
  }
  const dims = {} as EsScores;
  for (const dim of ES_DIMENSIONS) dims[dim] = units.reduce((s, u) => s + u[dim], 0) / n;
  return { es: esFromUnitScores(dims), dimensions: dims, samples };
}

/** Adapts an LlmService to a JudgeFn (one user message; temperature from the model's completion_params). */
export function llmJudge(llm: LlmService, model: ModelRef): JudgeFn {
  return async ({ prompt }) => (await llm.chat({ model, messages: [{ role: "user", content: prompt }] })).text;
}
