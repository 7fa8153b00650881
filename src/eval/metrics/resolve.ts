/**
 * Chat2Workflow resolve-stage helpers under Weft's rules (`--fidelity weft`; upstream's exact rules are in
 * src/eval/upstream/resolve-rules.ts, the differences in docs/chat2workflow-results.md):
 * a test run fails deterministically when the run errored, when its outputs are empty, or when an
 * output listed in check_resolve_stage.json is missing or is not a file (or a list of files) with the
 * required extension. If every output is such a listed file it passes with no judge call; otherwise an
 * LLM judge decides on the non-file outputs (prompt: src/eval/prompts/resolve-judge.md).
 * Resolve rate = passing tests / all tests (237 in the benchmark); tests of workflows that failed the
 * pass stage count as failures.
 */
import { MetricCodes, MetricInputError } from "./errors.js";
import { loadPrompt, renderTemplate } from "./prompt.js";

export type Outputs = Record<string, unknown> | null | undefined;

/** A Dify file value: an object carrying a string `extension` (or the __dify__file__ identity). */
export function isFileValue(v: unknown): v is { extension?: string; filename?: string } {
  if (!v || typeof v !== "object" || Array.isArray(v)) return false;
  const o = v as Record<string, unknown>;
  return o.dify_model_identity === "__dify__file__" || typeof o.extension === "string";
}

/** ".PDF", "pdf", " .pdf " → ".pdf". A file without `extension` falls back to its filename's suffix. */
export function normaliseExtension(ext: string): string {
  const t = ext.trim().toLowerCase();
  return t === "" ? "" : t.startsWith(".") ? t : `.${t}`;
}

function fileExtension(f: { extension?: string; filename?: string }): string {
  if (typeof f.extension === "string" && f.extension.trim() !== "") return normaliseExtension(f.extension);
  const m = typeof f.filename === "string" ? f.filename.match(/(\.[^./\\]+)$/) : null;
  return m ? normaliseExtension(m[1]!) : "";
}

/** Empty outputs fail the resolve stage: no outputs object, or one with no keys. */
export function isEmptyOutputs(outputs: Outputs): boolean {
  return outputs === null || outputs === undefined || typeof outputs !== "object" || Object.keys(outputs).length === 0;
}

export interface FileCheckFailure {
  output: string;
  reason: "missing" | "not_a_file" | "empty_file_list" | "wrong_extension";
  expected: string;
  actual?: string[];
}

/**
 * Checks each required output (name → extension such as ".pdf"). A list output must be non-empty and
 * every element a file with that extension (an empty list has no file, so it fails).
 */
export function checkFileOutputs(
  outputs: Outputs,
  required: Record<string, string>,
): { ok: boolean; failures: FileCheckFailure[] } {
  const failures: FileCheckFailure[] = [];
  const out = outputs ?? {};
  for (const [name, extRaw] of Object.entries(required)) {
    if (typeof extRaw !== "string") {
      throw new MetricInputError(MetricCodes.invalidArgument, `required extension for "${name}" is not a string`, {
        field: name,
      });
    }
    const expected = normaliseExtension(extRaw);
    if (!(name in out) || out[name] === null || out[name] === undefined) {
      failures.push({ output: name, reason: "missing", expected });
      continue;
    }
    const v = out[name];
    const files = Array.isArray(v) ? v : [v];
    if (Array.isArray(v) && v.length === 0) {
      failures.push({ output: name, reason: "empty_file_list", expected });
      continue;
    }
    if (!files.every(isFileValue)) {
      failures.push({ output: name, reason: "not_a_file", expected });
      continue;
    }
    const actual = files.map(fileExtension);
    if (actual.some((a) => a !== expected))
      failures.push({ output: name, reason: "wrong_extension", expected, actual });
  }
  return { ok: failures.length === 0, failures };
}

/** Outputs that are not files (or lists of files): the part the judge sees, as "name: value" lines. */
export function nonFileOutputs(outputs: Outputs): Record<string, unknown> {
  const res: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(outputs ?? {})) {
    const isFiles = isFileValue(v) || (Array.isArray(v) && v.length > 0 && v.every(isFileValue));
    if (!isFiles) res[k] = v;
  }
  return res;
}

export function formatNameValues(vals: Record<string, unknown>): string {
  return Object.entries(vals)
    .map(([k, v]) => `${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`)
    .join("\n");
}

export interface ResolveJudgeInput {
  /** Round 1 up to the current round. */
  queries: readonly string[];
  /** Non-file inputs. */
  inputs: Record<string, unknown>;
  /** Non-file outputs. */
  outputs: Record<string, unknown>;
  referenceAnswer?: string;
}

export function buildResolveJudgePrompt(input: ResolveJudgeInput): string {
  return renderTemplate(loadPrompt("resolve-judge"), {
    queries: input.queries.map((q, i) => `Round ${i + 1}: ${q}`).join("\n"),
    input: formatNameValues(input.inputs),
    output: formatNameValues(input.outputs),
    reference: input.referenceAnswer ?? "",
  });
}

export interface ResolveVerdict {
  pass: boolean;
  reason: string;
  /** Whether a <result> tag was present. */
  parsed: boolean;
}

/**
 * Weft's reading: the text after the last `<result>` (tags matched case-insensitively, read to the end of
 * the reply) fails if it contains "false". A reply without `<result>` fails, with parsed=false — upstream
 * would pass it (parseUpstreamVerdict).
 */
export function parseResolveJudge(text: string): ResolveVerdict {
  const reasons = [...text.matchAll(/<reason>([\s\S]*?)(?:<\/reason>|$)/gi)];
  const reason = reasons.length > 0 ? reasons[reasons.length - 1]![1]!.trim() : "";
  const idx = text.toLowerCase().lastIndexOf("<result>");
  if (idx < 0) return { pass: false, reason: reason || "judge reply has no <result> tag", parsed: false };
  const tail = text.slice(idx + "<result>".length);
  return { pass: !/false/i.test(tail), reason, parsed: true };
}

/** `prompt` is the user message; `system`, when given, goes before it as a system message (upstream's layout). */
export type ResolveJudgeFn = (req: { prompt: string; system?: string }) => Promise<string>;

export interface ResolveRunInput {
  /** The run raised / returned an HTTP or engine error. */
  error?: unknown;
  outputs: Outputs;
  /** From check_resolve_stage.json, when this instruction outputs files. */
  requiredFiles?: Record<string, string>;
  queries: readonly string[];
  inputs: Record<string, unknown>;
  referenceAnswer?: string;
}

export interface ResolveOutcome {
  pass: boolean;
  stage: "error" | "empty_outputs" | "file_check" | "files_only" | "judge";
  reason: string;
  fileFailures?: FileCheckFailure[];
}

/** Decides one test run: deterministic checks first, the judge only for non-file outputs. */
export async function resolveTestRun(run: ResolveRunInput, judge: ResolveJudgeFn): Promise<ResolveOutcome> {
  if (run.error !== undefined && run.error !== null)
    return { pass: false, stage: "error", reason: String((run.error as Error)?.message ?? run.error) };
  if (isEmptyOutputs(run.outputs))
    return { pass: false, stage: "empty_outputs", reason: "workflow returned no outputs" };
  if (run.requiredFiles) {
    const fc = checkFileOutputs(run.outputs, run.requiredFiles);
    if (!fc.ok)
      return {
        pass: false,
        stage: "file_check",
        reason: "required file output missing or wrong type",
        fileFailures: fc.failures,
      };
  }
  const textOut = nonFileOutputs(run.outputs);
  if (Object.keys(textOut).length === 0)
    return { pass: true, stage: "files_only", reason: "every output is a checked file" };
  const nonFileInputs: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(run.inputs)) {
    const isFiles = isFileValue(v) || (Array.isArray(v) && v.length > 0 && v.every(isFileValue));
    if (!isFiles) nonFileInputs[k] = v;
  }
  const prompt = buildResolveJudgePrompt({
    queries: run.queries,
    inputs: nonFileInputs,
    outputs: textOut,
    referenceAnswer: run.referenceAnswer,
  });
  const v = parseResolveJudge(await judge({ prompt }));
  return { pass: v.pass, stage: "judge", reason: v.reason };
}

/** passing / total; `total` defaults to results.length (pass-stage failures must be included as false). */
export function resolveRate(results: readonly boolean[], total = results.length): number {
  if (!Number.isInteger(total) || total < results.length) {
    throw new MetricInputError(
      MetricCodes.invalidArgument,
      `total ${total} is smaller than the ${results.length} results given`,
      { field: "total" },
    );
  }
  return total === 0 ? 0 : results.filter(Boolean).length / total;
}
