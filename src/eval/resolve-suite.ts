/**
 * Chat2Workflow-style resolve evaluation over a suite file: each instruction (task + round, with the round
 * queries so far) names the workflow built for it and its test cases (inputs + optional reference answer).
 * Each case's run fails on a run error, empty outputs or a required file output of the wrong type; text
 * outputs then go to the resolve judge (src/eval/prompts/resolve-judge.md) when one is configured, and are
 * otherwise reported as "judge skipped" (neither passed nor failed).
 *
 * Suite file (JSON):
 * {
 *   "name": "my-suite",
 *   "instructions": [{
 *     "task": "PaperDeepReader", "round": 1,
 *     "queries": ["round 1 request", "...up to this round"],
 *     "workflow": "workflows/paper_1.json",          // Weft JSON or Dify YAML, relative to the suite file
 *     "required_files": { "md": ".md" },              // optional: output name → extension
 *     "cases": [{ "name": "test1", "inputs": { "language": "Chinese", "paper": { "file": "files/a.pdf" } },
 *                 "reference": "optional reference answer" }]
 *   }]
 * }
 * A file input is `{ "file": path }` (or a list of them), read relative to the suite file; Chat2Workflow's own
 * `{ "mime_type", "value": filename }` form is read from `files_dir` (default: the suite's folder).
 */
import { existsSync, readFileSync } from "node:fs";
import { basename, dirname, resolve } from "node:path";
import { z } from "zod";
import { loadWorkflowFile } from "../dsl/load.js";
import { runWorkflow } from "../engine/run.js";
import { WeftError } from "../ir/errors.js";
import type { ExecServices, FileService } from "../ir/services.js";
import type { Workflow } from "../ir/workflow.js";
import { extensionOf, mimeForExtension } from "../tools/mime.js";
import {
  buildResolveJudgePrompt,
  checkFileOutputs,
  type FileCheckFailure,
  isEmptyOutputs,
  isFileValue,
  nonFileOutputs,
  parseResolveJudge,
  type ResolveJudgeFn,
} from "./metrics/resolve.js";

export class ResolveSuiteError extends WeftError {}

const CaseSchema = z.object({
  name: z.string().optional(),
  inputs: z.record(z.string(), z.unknown()).default({}),
  reference: z.string().optional(),
});

const InstructionSchema = z.object({
  task: z.string().min(1),
  round: z.number().int().positive().default(1),
  queries: z.array(z.string()).min(1),
  workflow: z.string().min(1),
  required_files: z.record(z.string(), z.string()).optional(),
  cases: z.array(CaseSchema).min(1),
});

const SuiteSchema = z.object({
  name: z.string().optional(),
  files_dir: z.string().optional(),
  instructions: z.array(InstructionSchema).min(1),
});

export type ResolveSuiteInstruction = z.infer<typeof InstructionSchema>;
export interface ResolveSuite {
  name: string;
  dir: string;
  filesDir: string;
  instructions: ResolveSuiteInstruction[];
}

export function loadResolveSuite(path: string): ResolveSuite {
  if (!existsSync(path))
    throw new ResolveSuiteError("resolve.suite_not_found", `suite file ${path} does not exist`, { path });
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (e) {
    throw new ResolveSuiteError("resolve.suite_invalid", `${path} is not valid JSON: ${(e as Error).message}`, {
      path,
    });
  }
  const parsed = SuiteSchema.safeParse(raw);
  if (!parsed.success) {
    const iss = parsed.error.issues[0]!;
    throw new ResolveSuiteError("resolve.suite_invalid", `${path}: ${iss.path.join(".") || "(root)"}: ${iss.message}`, {
      path,
      field: iss.path.join("."),
    });
  }
  const dir = dirname(resolve(path));
  return {
    name: parsed.data.name ?? basename(path).replace(/\.json$/i, ""),
    dir,
    filesDir: resolve(dir, parsed.data.files_dir ?? "."),
    instructions: parsed.data.instructions,
  };
}

export type ResolveStage = "error" | "empty_outputs" | "file_check" | "files_only" | "judge" | "judge_skipped";

export interface ResolveCaseResult {
  task: string;
  round: number;
  case: string;
  /** null when the verdict needed the judge and none was configured. */
  pass: boolean | null;
  stage: ResolveStage;
  reason: string;
  outputs?: Record<string, unknown>;
  fileFailures?: FileCheckFailure[];
}

export interface ResolveSuiteResult {
  suite: string;
  cases: number;
  passed: number;
  failed: number;
  /** Cases whose deterministic checks passed but whose text outputs were not judged. */
  skipped: number;
  /** passed / cases; null while some verdicts were skipped (then the rate lies in [lower, upper]). */
  resolveRate: number | null;
  /** passed / cases (every skipped case failing). */
  lowerBound: number;
  /** (passed + skipped) / cases (every skipped case passing). */
  upperBound: number;
  judge: boolean;
  results: ResolveCaseResult[];
}

export interface ResolveRunOptions {
  services: Partial<ExecServices>;
  judge?: ResolveJudgeFn;
  onProgress?: (done: number, total: number) => void;
}

async function readFileInput(path: string, files: FileService | undefined, field: string): Promise<unknown> {
  if (!files)
    throw new ResolveSuiteError(
      "resolve.no_file_service",
      `input ${field} is a file but no file service is configured`,
      { field },
    );
  if (!existsSync(path))
    throw new ResolveSuiteError("resolve.input_file_missing", `input ${field}: file ${path} does not exist`, {
      field,
      path,
    });
  const filename = basename(path);
  return files.put(new Uint8Array(readFileSync(path)), {
    filename,
    mimeType: mimeForExtension(extensionOf(filename)) ?? "application/octet-stream",
  });
}

/** Turns the suite's file references into file values in the run's file store; other values pass through. */
async function materialiseInputs(suite: ResolveSuite, inputs: Record<string, unknown>, files?: FileService) {
  const one = async (v: unknown, field: string): Promise<unknown> => {
    if (v && typeof v === "object" && !Array.isArray(v)) {
      const o = v as Record<string, unknown>;
      if (typeof o.file === "string") return readFileInput(resolve(suite.dir, o.file), files, field);
      if (typeof o.mime_type === "string" && typeof o.value === "string")
        return readFileInput(resolve(suite.filesDir, o.value), files, field);
    }
    return v;
  };
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(inputs))
    out[k] = Array.isArray(v) ? await Promise.all(v.map((x) => one(x, k))) : await one(v, k);
  return out;
}

async function decide(
  ins: ResolveSuiteInstruction,
  c: z.infer<typeof CaseSchema>,
  outputs: Record<string, unknown>,
  inputs: Record<string, unknown>,
  judge: ResolveJudgeFn | undefined,
): Promise<Omit<ResolveCaseResult, "task" | "round" | "case">> {
  if (isEmptyOutputs(outputs)) return { pass: false, stage: "empty_outputs", reason: "workflow returned no outputs" };
  if (ins.required_files) {
    const fc = checkFileOutputs(outputs, ins.required_files);
    if (!fc.ok)
      return {
        pass: false,
        stage: "file_check",
        reason: fc.failures.map((f) => `${f.output}: ${f.reason} (expected ${f.expected})`).join("; "),
        fileFailures: fc.failures,
      };
  }
  const text = nonFileOutputs(outputs);
  if (Object.keys(text).length === 0)
    return { pass: true, stage: "files_only", reason: "every output is a checked file" };
  if (!judge)
    return {
      pass: null,
      stage: "judge_skipped",
      reason: "text outputs need the LLM judge; no judge model is configured, so this part was skipped",
    };
  const textInputs = Object.fromEntries(
    Object.entries(inputs).filter(
      ([, v]) => !(isFileValue(v) || (Array.isArray(v) && v.length > 0 && v.every(isFileValue))),
    ),
  );
  const prompt = buildResolveJudgePrompt({
    queries: ins.queries,
    inputs: textInputs,
    outputs: text,
    referenceAnswer: c.reference,
  });
  const v = parseResolveJudge(await judge({ prompt }));
  return { pass: v.pass, stage: "judge", reason: v.reason };
}

export async function runResolveSuite(suite: ResolveSuite, opts: ResolveRunOptions): Promise<ResolveSuiteResult> {
  const total = suite.instructions.reduce((s, i) => s + i.cases.length, 0);
  const results: ResolveCaseResult[] = [];
  let done = 0;
  for (const ins of suite.instructions) {
    let workflow: Workflow | undefined;
    let loadError: string | undefined;
    try {
      workflow = (await loadWorkflowFile(resolve(suite.dir, ins.workflow))).workflow;
    } catch (e) {
      loadError = `workflow ${ins.workflow} could not be loaded: ${(e as Error).message}`;
    }
    for (const [i, c] of ins.cases.entries()) {
      const base = { task: ins.task, round: ins.round, case: c.name ?? `test${i + 1}` };
      let r: Omit<ResolveCaseResult, "task" | "round" | "case">;
      if (!workflow) r = { pass: false, stage: "error", reason: loadError ?? "no workflow" };
      else {
        try {
          const inputs = await materialiseInputs(suite, c.inputs, opts.services.files);
          const run = await runWorkflow(workflow, { inputs, services: opts.services });
          if (run.status === "failed")
            r = {
              pass: false,
              stage: "error",
              reason: `${run.error?.code ?? "run.failed"}: ${run.error?.message ?? ""}`,
              outputs: run.outputs,
            };
          else r = { ...(await decide(ins, c, run.outputs, inputs, opts.judge)), outputs: run.outputs };
        } catch (e) {
          r = { pass: false, stage: "error", reason: (e as Error).message ?? String(e) };
        }
      }
      results.push({ ...base, ...r });
      opts.onProgress?.(++done, total);
    }
  }
  const passed = results.filter((r) => r.pass === true).length;
  const failed = results.filter((r) => r.pass === false).length;
  const skipped = results.filter((r) => r.pass === null).length;
  const n = results.length;
  return {
    suite: suite.name,
    cases: results.length,
    passed,
    failed,
    skipped,
    resolveRate: skipped > 0 || n === 0 ? null : passed / n,
    lowerBound: n ? passed / n : 0,
    upperBound: n ? (passed + skipped) / n : 0,
    judge: opts.judge !== undefined,
    results,
  };
}
