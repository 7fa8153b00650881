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
import pLimit from "p-limit";
import { z } from "zod";
import { loadWorkflowFile } from "../dsl/load.js";
import { runWorkflow } from "../engine/run.js";
import { WeftError } from "../ir/errors.js";
import type { ExecServices, FileService } from "../ir/services.js";
import type { Workflow } from "../ir/workflow.js";
import { extensionOf, mimeForExtension } from "../tools/mime.js";
import { defaultCaseTimeoutMs, type Fidelity } from "./fidelity.js";
import {
  buildResolveJudgePrompt,
  checkFileOutputs,
  isEmptyOutputs,
  isFileValue,
  nonFileOutputs,
  parseResolveJudge,
  type ResolveJudgeFn,
} from "./metrics/resolve.js";
import {
  CaseSchema,
  extensionsOf,
  type JudgeRetry,
  type ResolveCase,
  type ResolveCaseResult,
  type ResolveSuiteInstruction,
  type Verdict,
} from "./resolve-case.js";
import { askJudge } from "./resolve-judge.js";
import { decideUpstream } from "./resolve-upstream.js";

export type { ResolveCase, ResolveCaseResult, ResolveStage, ResolveSuiteInstruction } from "./resolve-case.js";

import type { UpstreamPrompt } from "./upstream/prompts.js";

export class ResolveSuiteError extends WeftError {}

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

export interface ResolveSuiteResult {
  suite: string;
  cases: number;
  passed: number;
  failed: number;
  /** Cases whose deterministic checks passed but whose text outputs were not judged. */
  skipped: number;
  /** Cases whose judge call failed on every attempt: no verdict, so they are left out of the rates. */
  unknown: number;
  /** passed / (cases − unknown); null while some verdicts were skipped (then the rate lies in [lower, upper]). */
  resolveRate: number | null;
  /** passed / (cases − unknown) (every skipped case failing). */
  lowerBound: number;
  /** (passed + skipped) / (cases − unknown) (every skipped case passing). */
  upperBound: number;
  judge: boolean;
  fidelity: Fidelity;
  results: ResolveCaseResult[];
}

export interface ResolveRunOptions {
  services: Partial<ExecServices>;
  judge?: ResolveJudgeFn;
  onProgress?: (done: number, total: number) => void;
  /** Cases run at once (default 1). */
  concurrency?: number;
  /**
   * A case still running after this long is cancelled and ends as error `resolve.timeout`. Default: none
   * under `upstream` fidelity (upstream sets none), 300 s under `weft`.
   */
  caseTimeoutMs?: number;
  /** Whose rules decide each case (src/eval/fidelity.ts); default "weft" for a generic suite. */
  fidelity?: Fidelity;
  /** `upstream` fidelity with a judge: upstream's resolve judge prompt (src/eval/upstream/prompts.ts). */
  upstreamPrompt?: UpstreamPrompt;
  /** Judge calls per case before it is reported unknown (default 3), and the first pause between them (default 2 s, doubling). */
  judgeAttempts?: number;
  judgeRetryDelayMs?: number;
}

async function readFileInput(
  path: string,
  files: FileService | undefined,
  field: string,
  uploadName?: string,
): Promise<unknown> {
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
  const filename = uploadName ?? basename(path);
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
      // Upstream uploads a case file as document.<ext> / image.<ext>: workflows never see its real name.
      if (typeof o.mime_type === "string" && typeof o.value === "string")
        return readFileInput(
          resolve(suite.filesDir, o.value),
          files,
          field,
          `${o.mime_type.startsWith("image/") ? "image" : "document"}${extensionOf(o.value)}`,
        );
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

/** Weft's rules (`--fidelity weft`, src/eval/metrics/resolve.ts); upstream's are in resolve-upstream.ts. */
async function decideWeft(
  ins: ResolveSuiteInstruction,
  c: ResolveCase,
  outputs: Record<string, unknown>,
  inputs: Record<string, unknown>,
  judge: ResolveJudgeFn | undefined,
  retry: JudgeRetry,
): Promise<Verdict> {
  if (isEmptyOutputs(outputs)) return { pass: false, stage: "empty_outputs", reason: "workflow returned no outputs" };
  const fileExtensions = ins.required_files ? extensionsOf(outputs, Object.keys(ins.required_files)) : undefined;
  if (ins.required_files) {
    const fc = checkFileOutputs(outputs, ins.required_files);
    if (!fc.ok)
      return {
        pass: false,
        stage: "file_check",
        reason: fc.failures.map((f) => `${f.output}: ${f.reason} (expected ${f.expected})`).join("; "),
        fileFailures: fc.failures,
        fileExtensions,
      };
  }
  const text = nonFileOutputs(outputs);
  if (Object.keys(text).length === 0)
    return { pass: true, stage: "files_only", reason: "every output is a checked file", fileExtensions };
  if (!judge)
    return {
      pass: null,
      stage: "judge_skipped",
      reason: "text outputs need the LLM judge; no judge model is configured, so this part was skipped",
      ...(fileExtensions ? { fileExtensions } : {}),
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
  const reply = await askJudge(judge, { prompt }, retry);
  if (!reply.ok) return { ...reply.unknown, ...(fileExtensions ? { fileExtensions } : {}) };
  const v = parseResolveJudge(reply.text);
  return { pass: v.pass, stage: "judge", reason: v.reason, ...(fileExtensions ? { fileExtensions } : {}) };
}

/** What a failed node needed, read from its config: a tool's provider/name, an LLM's model. */
function failedNode(workflow: Workflow, nodeId: string | undefined): Pick<Verdict, "errorNode" | "cause"> {
  const node = nodeId ? workflow.nodes.find((n) => n.id === nodeId) : undefined;
  if (!node) return {};
  const c = (node.config ?? {}) as Record<string, unknown>;
  const model = (c.model ?? {}) as { provider?: unknown; name?: unknown };
  const cause =
    node.type === "tool"
      ? `tool ${String(c.provider_id ?? c.provider_name ?? "?")}/${String(c.tool_name ?? "?")}`
      : typeof model.name === "string"
        ? `model ${String(model.provider ?? "?")}/${model.name}`
        : undefined;
  return { errorNode: { id: node.id, type: node.type, title: node.title ?? node.id }, ...(cause ? { cause } : {}) };
}

const codeOf = (e: unknown) => (e instanceof WeftError ? e.code : "resolve.case_failed");

async function runCase(
  suite: ResolveSuite,
  ins: ResolveSuiteInstruction,
  c: ResolveCase,
  workflow: Workflow,
  opts: ResolveRunOptions,
): Promise<Verdict> {
  const fidelity = opts.fidelity ?? "weft";
  const timeoutMs = opts.caseTimeoutMs ?? defaultCaseTimeoutMs(fidelity);
  const ctl = new AbortController();
  const timedOut: Verdict = {
    pass: false,
    stage: "error",
    reason: `the run took longer than ${timeoutMs} ms and was cancelled`,
    errorCode: "resolve.timeout",
  };
  let timer: NodeJS.Timeout | undefined;
  // A node that ignores the abort signal must not hold the whole evaluation: the case ends at the deadline.
  const deadline =
    timeoutMs === undefined
      ? new Promise<"timeout">(() => {})
      : new Promise<"timeout">((ok) => {
          timer = setTimeout(() => {
            ctl.abort();
            ok("timeout");
          }, timeoutMs);
        });
  try {
    const inputs = await materialiseInputs(suite, c.inputs, opts.services.files);
    const run = await Promise.race([
      runWorkflow(workflow, { inputs, services: opts.services, signal: ctl.signal }),
      deadline,
    ]);
    if (run === "timeout" || ctl.signal.aborted) return timedOut;
    if (run.status !== "failed") {
      const retry = { attempts: opts.judgeAttempts ?? 3, delayMs: opts.judgeRetryDelayMs ?? 2000 };
      const v =
        fidelity === "upstream"
          ? await decideUpstream(ins, c, run.outputs, inputs, opts.judge, opts.upstreamPrompt, retry)
          : await decideWeft(ins, c, run.outputs, inputs, opts.judge, retry);
      return { ...v, outputs: run.outputs };
    }
    // A container (iteration, loop) reports its child's failure as its own: the cause is the first attempt
    // that failed and was not retried into a success.
    const recovered = new Set(run.trace.filter((a) => a.status !== "failed").map((a) => a.key));
    const first = run.trace
      .filter((a) => a.status === "failed" && a.error && !recovered.has(a.key))
      .sort((a, b) => a.endedAt - b.endedAt)[0];
    return {
      pass: false,
      stage: "error",
      reason: `${run.error?.code ?? "run.failed"}: ${run.error?.message ?? ""}`,
      errorCode: first?.error?.code ?? run.error?.code ?? "run.failed",
      ...failedNode(workflow, first?.nodeId ?? run.error?.nodeId),
      outputs: run.outputs,
    };
  } catch (e) {
    return { pass: false, stage: "error", reason: (e as Error).message ?? String(e), errorCode: codeOf(e) };
  } finally {
    clearTimeout(timer);
  }
}

async function loadInstructionWorkflow(ins: ResolveSuiteInstruction): Promise<Workflow | Verdict> {
  if (!ins.workflow)
    return {
      pass: false,
      stage: "error",
      reason: `no workflow for ${ins.task}_${ins.round}`,
      errorCode: "resolve.no_workflow",
    };
  try {
    return (await loadWorkflowFile(ins.workflow)).workflow;
  } catch (e) {
    return {
      pass: false,
      stage: "error",
      reason: `workflow ${ins.workflow} could not be loaded: ${(e as Error).message}`,
      errorCode: codeOf(e),
    };
  }
}

export async function runResolveSuite(suite: ResolveSuite, opts: ResolveRunOptions): Promise<ResolveSuiteResult> {
  const fidelity = opts.fidelity ?? "weft";
  if (fidelity === "upstream" && opts.judge && !opts.upstreamPrompt)
    throw new ResolveSuiteError(
      "resolve.upstream_prompt_missing",
      "upstream fidelity judges with upstream's resolve prompt; none was given (upstreamPrompt)",
      { field: "upstreamPrompt" },
    );
  const total = suite.instructions.reduce((s, i) => s + i.cases.length, 0);
  const limit = pLimit(Math.max(1, opts.concurrency ?? 1));
  let done = 0;
  const jobs: Array<Promise<ResolveCaseResult>> = [];
  for (const ins of suite.instructions) {
    const loaded = await loadInstructionWorkflow(ins);
    for (const [i, c] of ins.cases.entries()) {
      const base = { task: ins.task, round: ins.round, case: c.name ?? `test${i + 1}` };
      jobs.push(
        limit(async () => {
          const t0 = Date.now();
          const r = "nodes" in loaded ? await runCase(suite, ins, c, loaded, opts) : loaded;
          opts.onProgress?.(++done, total);
          return { ...base, ...r, durationMs: Date.now() - t0 };
        }),
      );
    }
  }
  const results = await Promise.all(jobs);
  const passed = results.filter((r) => r.pass === true).length;
  const failed = results.filter((r) => r.pass === false).length;
  const unknown = results.filter((r) => r.stage === "judge_unknown").length;
  const skipped = results.filter((r) => r.pass === null).length - unknown;
  // A case the judge never answered has no verdict: it leaves the denominator instead of counting as a failure.
  const n = results.length - unknown;
  return {
    suite: suite.name,
    cases: results.length,
    passed,
    failed,
    skipped,
    unknown,
    resolveRate: skipped > 0 || n === 0 ? null : passed / n,
    lowerBound: n ? passed / n : 0,
    upperBound: n ? (passed + skipped) / n : 0,
    judge: opts.judge !== undefined,
    fidelity,
    results,
  };
}
