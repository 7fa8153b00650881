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
 * `{ "mime_type", "value": filename }` form is read from `files_dir` (default: the suite's folder). Inputs whose
 * value is "" are left out, as upstream does.
 *
 * The Chat2Workflow dataset itself is a suite too (`loadChat2WorkflowSuite`): dataset/query.json gives the rounds,
 * check_pass_stage.json the three test cases per instruction (`ground_truth` is the reference, not an input),
 * check_resolve_stage.json the required files; the workflow of instruction `<Task>_<round>` is read from
 * `<workflowsDir>/<Task>_<round>.{json,yml,yaml}`. An instruction without one fails its cases (upstream counts
 * instructions that failed the pass stage as 0, so the denominator stays 3 × instructions).
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
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

export type ResolveCase = z.infer<typeof CaseSchema>;
export interface ResolveSuiteInstruction {
  task: string;
  round: number;
  queries: string[];
  /** Absolute path of the workflow file; undefined when the suite has none for this instruction. */
  workflow?: string;
  required_files?: Record<string, string>;
  cases: ResolveCase[];
}
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
    instructions: parsed.data.instructions.map((i) => ({ ...i, workflow: resolve(dir, i.workflow) })),
  };
}

function readJson(path: string): unknown {
  if (!existsSync(path)) throw new ResolveSuiteError("resolve.suite_not_found", `${path} does not exist`, { path });
  try {
    return JSON.parse(readFileSync(path, "utf8"));
  } catch (e) {
    throw new ResolveSuiteError("resolve.suite_invalid", `${path} is not valid JSON: ${(e as Error).message}`, {
      path,
    });
  }
}

/**
 * The Chat2Workflow dataset as a resolve suite. `dir` holds dataset/ (or is it); workflows are looked up by
 * instruction key in `workflowsDir`; file inputs are read from `caseFilesDir` (default `<dir>/case_files`).
 */
export function loadChat2WorkflowSuite(
  dir: string,
  opts: { workflowsDir: string; caseFilesDir?: string },
): ResolveSuite {
  const ds = existsSync(join(dir, "dataset", "query.json")) ? join(dir, "dataset") : dir;
  const queries = readJson(join(ds, "query.json"));
  const checks = readJson(join(ds, "check_pass_stage.json")) as Record<string, Record<string, unknown>>;
  const resolveChecks = (
    existsSync(join(ds, "check_resolve_stage.json")) ? readJson(join(ds, "check_resolve_stage.json")) : {}
  ) as Record<string, Record<string, string>>;
  if (!Array.isArray(queries))
    throw new ResolveSuiteError("resolve.suite_invalid", "query.json must be a list of tasks", { path: ds });
  if (!existsSync(opts.workflowsDir) || !statSync(opts.workflowsDir).isDirectory())
    throw new ResolveSuiteError("resolve.workflows_dir", `workflows folder ${opts.workflowsDir} does not exist`, {
      path: opts.workflowsDir,
    });
  const instructions: ResolveSuiteInstruction[] = [];
  for (const q of queries as Array<Record<string, unknown>>) {
    const task = String(q.task);
    const rounds: string[] = [];
    for (let round = 1; typeof q[`query${round}`] === "string"; round++) {
      rounds.push(q[`query${round}`] as string);
      const key = `${task}_${round}`;
      const check = checks[key];
      if (!check)
        throw new ResolveSuiteError("resolve.suite_invalid", `check_pass_stage.json has no entry ${key}`, { key });
      const cases: ResolveCase[] = Object.keys(check)
        .filter((k) => /^test\d+$/.test(k))
        .sort((a, b) => Number(a.slice(4)) - Number(b.slice(4)))
        .map((name) => {
          const { ground_truth, ...inputs } = (check[name] ?? {}) as Record<string, unknown>;
          return {
            name,
            inputs,
            ...(typeof ground_truth === "string" && ground_truth !== "" ? { reference: ground_truth } : {}),
          };
        });
      const workflow = [".json", ".yml", ".yaml"]
        .map((ext) => resolve(opts.workflowsDir, `${key}${ext}`))
        .find((p) => existsSync(p));
      instructions.push({
        task,
        round,
        queries: [...rounds],
        ...(workflow ? { workflow } : {}),
        ...(resolveChecks[key] ? { required_files: resolveChecks[key] } : {}),
        cases,
      });
    }
  }
  const root = ds === dir ? dirname(resolve(ds)) : resolve(dir);
  return {
    name: "chat2workflow",
    dir: resolve(dir),
    filesDir: resolve(opts.caseFilesDir ?? join(root, "case_files")),
    instructions,
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
  for (const [k, v] of Object.entries(inputs)) {
    if (v === "") continue;
    out[k] = Array.isArray(v) ? await Promise.all(v.map((x) => one(x, k))) : await one(v, k);
  }
  return out;
}

async function decide(
  ins: ResolveSuiteInstruction,
  c: ResolveCase,
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
    if (!ins.workflow) loadError = `no workflow for ${ins.task}_${ins.round}`;
    else
      try {
        workflow = (await loadWorkflowFile(ins.workflow)).workflow;
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
