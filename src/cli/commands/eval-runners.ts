/**
 * `weft eval sop | worf | resolve`: the benchmark runners, added to the `eval` command group.
 * - sop: score a workflow (default: the domain's reference workflow) on a SOP-Bench domain, n runs, pass^k;
 * - worf: WorfEval f1_chain / f1_graph of a predicted against a gold workflow graph;
 * - resolve: Chat2Workflow-style resolve stage over a suite file (see src/eval/resolve-suite.ts).
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import type { Command } from "@commander-js/extra-typings";
import cliProgress from "cli-progress";
import { analyse } from "../../analysis/index.js";
import { bowCosineV1, type Similarity, tokenCharCosine } from "../../eval/metrics/similarity.js";
import type { WorfGraph } from "../../eval/metrics/worf-graph.js";
import { evaluateWorf, type WorfMode } from "../../eval/metrics/worfeval.js";
import {
  loadChat2WorkflowSuite,
  loadResolveSuite,
  type ResolveSuite,
  type ResolveSuiteResult,
  runResolveSuite,
} from "../../eval/resolve-suite.js";
import { domains } from "../../eval/sopbench/dataset.js";
import { sopbenchToolEnv } from "../../eval/sopbench/job-services.js";
import { summarise, writeReport } from "../../eval/sopbench/report.js";
import { evaluateWorkflowOnDomain, type WorkflowEvalResult } from "../../eval/sopbench/run-workflow.js";
import type { ValidationMode } from "../../eval/sopbench/schema.js";
import { loadReferenceWorkflow } from "../../eval/sopbench/workflows/index.js";
import { formatDiagnostic, hasErrors } from "../../ir/diagnostics.js";
import type { Workflow } from "../../ir/workflow.js";
import { nodeCatalogue } from "../../nodes/index.js";
import { buildServices } from "../../runtime/services.js";
import { loadWeftConfig } from "../config.js";
import { readWorkflow } from "../io.js";
import { CliError, EXIT, printJson } from "../output.js";
import { resolveJudgeFrom } from "./eval-chat2workflow.js";

/** A progress bar on an interactive stderr (never with --json, never when piped). */
function progressBar(label: string, enabled: boolean): { update(done: number, total: number): void; stop(): void } {
  if (!enabled || !process.stderr.isTTY) return { update() {}, stop() {} };
  const bar = new cliProgress.SingleBar(
    { format: `${label} [{bar}] {value}/{total} {percentage}% eta {eta}s`, stream: process.stderr, hideCursor: true },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  return {
    update(done, total) {
      if (!started) {
        bar.start(total, 0);
        started = true;
      }
      bar.update(done);
    },
    stop() {
      if (started) bar.stop();
    },
  };
}

function positiveInt(raw: string, flag: string): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1)
    throw new CliError("usage.invalid_number", `${flag} must be a positive integer, got "${raw}"`);
  return n;
}

const pct = (v: number) => `${(v * 100).toFixed(1)}%`;

export function formatSopResult(r: WorkflowEvalResult): string {
  const first = r.perRun[0];
  const lines = [
    `${r.domain}: ${r.tasks} tasks × ${r.n} run${r.n === 1 ? "" : "s"}`,
    `strict  ${pct(r.strict)}${r.n === 1 && first ? ` (${first.strictCorrect}/${first.n})` : ""}`,
    `lenient ${pct(r.lenient)}${r.n === 1 && first ? ` (${first.lenientCorrect}/${first.n})` : ""}`,
    `ceiling ${r.ceiling !== undefined ? `${r.ceiling}/${r.tasks}` : "judgment labels (no rule ceiling)"}`,
    `pass^k  ${r.passAtK.map((p) => `k=${p.k} ${pct(p.strict)}/${pct(p.lenient)}`).join("  ")}  (strict/lenient)`,
  ];
  const errors = r.perRun.reduce((s, x) => s + x.errors, 0);
  if (errors > 0) {
    const sample = r.perRun.flatMap((x) => x.rows).find((x) => x.error);
    lines.push(`run errors: ${errors} row(s); first: ${sample?.taskId}: ${sample?.error}`);
  }
  return lines.join("\n");
}

async function sopAction(opts: {
  domain: string;
  workflow?: string;
  runs: string;
  limit?: string;
  concurrency: string;
  json?: boolean;
  out?: string;
  validation: string;
  coerceArgs?: boolean;
  queue?: boolean;
  redis?: string;
}): Promise<void> {
  const known = domains();
  if (!known.includes(opts.domain))
    throw new CliError(
      "usage.unknown_domain",
      `unknown SOP-Bench domain "${opts.domain}"; one of: ${known.join(", ")}`,
    );
  let workflow: Workflow;
  let name: string;
  if (opts.workflow) {
    workflow = (await readWorkflow(opts.workflow)).workflow;
    name = opts.workflow;
  } else {
    workflow = loadReferenceWorkflow(opts.domain);
    name = `reference:${opts.domain}`;
  }
  const diags = analyse(workflow, nodeCatalogue).diagnostics;
  if (hasErrors(diags)) {
    for (const d of diags.filter((x) => x.severity === "error")) process.stderr.write(`${formatDiagnostic(d)}\n`);
    throw new CliError(
      "eval.invalid_workflow",
      `${name} has analyser errors; fix them before scoring it`,
      EXIT.invalid,
    );
  }
  if (!["structural", "strict", "off"].includes(opts.validation))
    throw new CliError("usage.validation", `--validation must be structural, strict or off, got "${opts.validation}"`);
  const bar = progressBar(`sop ${opts.domain}`, !opts.json);
  let result: WorkflowEvalResult;
  const queue = opts.queue
    ? await (await import("../../queue/index.js")).createQueueRunner({ redisUrl: opts.redis })
    : undefined;
  try {
    result = await evaluateWorkflowOnDomain(workflow, opts.domain, {
      runs: positiveInt(opts.runs, "--runs"),
      concurrency: positiveInt(opts.concurrency, "--concurrency"),
      ...(opts.limit !== undefined ? { limit: positiveInt(opts.limit, "--limit") } : {}),
      env: { validation: opts.validation as ValidationMode, ...(opts.coerceArgs ? { coerceArgs: true } : {}) },
      onProgress: (d, t) => bar.update(d, t),
      ...(queue
        ? {
            runner: (job: { workflow: Workflow; inputs: Record<string, unknown>; domain: string; env: object }) =>
              queue.run({
                workflow: job.workflow,
                inputs: job.inputs,
                toolEnv: sopbenchToolEnv(job.domain, job.env as Record<string, unknown>),
              }),
          }
        : {}),
    });
  } finally {
    bar.stop();
    await queue?.close();
  }
  const written = opts.out ? writeReport(opts.out, result, name) : [];
  if (opts.json) printJson(summarise(result));
  else {
    process.stdout.write(`${formatSopResult(result)}\n`);
    for (const f of written) process.stdout.write(`wrote ${f}\n`);
  }
}

const SIMILARITIES: Record<string, Similarity> = {
  [tokenCharCosine.name]: tokenCharCosine,
  "token-char": tokenCharCosine,
  [bowCosineV1.name]: bowCosineV1,
  bow: bowCosineV1,
};

/** A WorfBench graph file: `{nodes, edges}` JSON, a WorfBench record (last conversation turn), or the text format. */
export function readWorfFile(path: string, role: string): WorfGraph | string {
  if (!existsSync(path)) throw new CliError("file.not_found", `${role} file ${path} does not exist`);
  const text = readFileSync(path, "utf8");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return text;
  }
  if (typeof value === "string") return value;
  if (value && typeof value === "object" && !Array.isArray(value)) {
    const o = value as Record<string, unknown>;
    if (Array.isArray(o.nodes) && Array.isArray(o.edges)) return o as unknown as WorfGraph;
    const conv = o.conversations;
    if (Array.isArray(conv) && conv.length > 0) {
      const last = conv[conv.length - 1] as { content?: unknown; value?: unknown };
      const content = last?.content ?? last?.value;
      if (typeof content === "string") return content;
    }
  }
  throw new CliError(
    "usage.worf_format",
    `${role} file ${path}: expected WorfBench text, {nodes, edges} JSON or a WorfBench record with conversations`,
  );
}

async function worfAction(
  pred: string,
  gold: string,
  opts: { json?: boolean; mode: string; similarity: string; threshold?: string },
): Promise<void> {
  if (opts.mode !== "upstream" && opts.mode !== "paper")
    throw new CliError("usage.worf_mode", `--mode must be upstream or paper, got "${opts.mode}"`);
  const similarity = SIMILARITIES[opts.similarity];
  if (!similarity)
    throw new CliError(
      "usage.worf_similarity",
      `unknown --similarity "${opts.similarity}"; one of: ${Object.keys(SIMILARITIES).join(", ")}`,
    );
  const threshold = opts.threshold === undefined ? undefined : Number(opts.threshold);
  if (threshold !== undefined && !(threshold >= 0 && threshold <= 1))
    throw new CliError("usage.worf_threshold", `--threshold must be a number in [0, 1], got "${opts.threshold}"`);
  const r = await evaluateWorf(readWorfFile(pred, "pred"), readWorfFile(gold, "gold"), {
    mode: opts.mode as WorfMode,
    similarity,
    ...(threshold !== undefined ? { threshold } : {}),
  });
  if (opts.json) {
    printJson({
      f1_chain: r.chain.f1,
      f1_graph: r.graph.f1,
      similarity: r.similarity,
      mode: r.mode,
      threshold: r.threshold,
      parseable: r.parseable,
      chain: { precision: r.chain.precision, recall: r.chain.recall, f1: r.chain.f1, exact: r.chain.exact },
      graph: { precision: r.graph.precision, recall: r.graph.recall, f1: r.graph.f1, exact: r.graph.exact },
      notes: r.notes,
    });
    return;
  }
  const f = (v: number) => v.toFixed(4);
  process.stdout.write(
    `${[
      `f1_chain ${f(r.chain.f1)} (precision ${f(r.chain.precision)}, recall ${f(r.chain.recall)})${r.chain.exact ? "" : " — search budget hit: lower bound"}`,
      `f1_graph ${f(r.graph.f1)} (precision ${f(r.graph.precision)}, recall ${f(r.graph.recall)})${r.graph.exact ? "" : " — search budget hit: lower bound"}`,
      `similarity ${r.similarity}, threshold ${r.threshold}${r.inclusive ? " (≥)" : " (>)"}, mode ${r.mode}, matcher ${r.matcher}`,
      ...(r.parseable ? [] : ["pred is not parseable: scored 0"]),
      ...r.notes.map((n) => `note: ${n}`),
    ].join("\n")}\n`,
  );
}

export function formatResolveResult(r: ResolveSuiteResult): string {
  const lines = r.results.map(
    (x) =>
      `${x.pass === true ? "✓" : x.pass === false ? "✗" : "?"} ${x.task} round ${x.round} ${x.case}: ${x.stage} — ${x.reason}`,
  );
  lines.push(
    `resolve ${r.suite}: ${r.passed} passed, ${r.failed} failed, ${r.skipped} skipped of ${r.cases}` +
      (r.resolveRate !== null
        ? ` — resolve rate ${pct(r.resolveRate)}`
        : ` — resolve rate between ${pct(r.lowerBound)} and ${pct(r.upperBound)}`),
  );
  if (!r.judge && r.skipped > 0)
    lines.push(
      `judge skipped: ${r.skipped} case(s) with text outputs were not judged (no --judge-model given); only run errors, empty outputs and file types were checked`,
    );
  return lines.join("\n");
}

async function resolveAction(
  suitePath: string,
  opts: {
    json?: boolean;
    judgeModel?: string;
    config?: string;
    workflows?: string;
    caseFiles?: string;
    concurrency?: string;
  },
): Promise<void> {
  let suite: ResolveSuite;
  if (existsSync(suitePath) && statSync(suitePath).isDirectory()) {
    if (!opts.workflows)
      throw new CliError(
        "usage.resolve_workflows",
        `${suitePath} is a folder, read as the Chat2Workflow dataset; give --workflows <dir> holding <Task>_<round>.json|yml`,
      );
    suite = loadChat2WorkflowSuite(suitePath, {
      workflowsDir: opts.workflows,
      ...(opts.caseFiles ? { caseFilesDir: opts.caseFiles } : {}),
    });
  } else suite = loadResolveSuite(suitePath);
  const judge = resolveJudgeFrom(opts.config, opts.judgeModel ?? process.env.WEFT_JUDGE_MODEL);
  const cfg = loadWeftConfig(opts.config);
  // The standard wiring: configured tools (and the built-in ones) serve the workflows' tool nodes.
  const services = await buildServices(cfg, { configPath: opts.config });
  const bar = progressBar(`resolve ${suite.name}`, !opts.json);
  let result: ResolveSuiteResult;
  try {
    result = await runResolveSuite(suite, {
      services,
      judge,
      concurrency: opts.concurrency ? positiveInt(opts.concurrency, "--concurrency") : 1,
      onProgress: (d, t) => bar.update(d, t),
    });
  } finally {
    bar.stop();
  }
  if (opts.json) printJson({ ...result, results: result.results.map(({ outputs: _o, ...rest }) => rest) });
  else process.stdout.write(`${formatResolveResult(result)}\n`);
  // A finished evaluation exits 0 whatever the score (as `eval sop` does); errors are for bad input.
}

/** Adds `sop`, `worf` and `resolve` to the `eval` command group. */
export function registerEvalRunners(evalCommand: Command): void {
  evalCommand
    .command("sop")
    .description(
      "score a workflow on a SOP-Bench domain (default: the domain's reference workflow): strict, lenient, pass^k",
    )
    .requiredOption("--domain <name>", "SOP-Bench domain (e.g. customer_service)")
    .option("--workflow <file>", "workflow to score (Weft JSON or Dify YAML); default: the reference workflow")
    .option("--runs <n>", "runs per task (pass^k for k = 1..n)", "1")
    .option("--limit <n>", "score only the first n tasks")
    .option("--concurrency <n>", "tasks run at once", "8")
    .option("--json", "print {domain, tasks, n (runs per task), strict, lenient, passAtK} as JSON")
    .option("--out <dir>", "write <domain>.results.json, <domain>.md and <domain>.passk.svg here")
    .option("--validation <mode>", "tool-argument validation: structural, strict or off", "structural")
    .option("--coerce-args", 'let the tools coerce text arguments ("5", "true") to their schema types')
    .option("--queue", "run the tasks on `weft worker` processes over Redis instead of in this process")
    .option("--redis <url>", "Redis for --queue (default WEFT_REDIS_URL or redis://127.0.0.1:6379)")
    .action(async (opts) => sopAction(opts));

  evalCommand
    .command("worf")
    .description("WorfEval f1_chain and f1_graph of a predicted workflow graph against a gold one")
    .argument("<pred>", "predicted graph: WorfBench text or {nodes, edges} JSON")
    .argument("<gold>", "gold graph: WorfBench text, {nodes, edges} JSON or a WorfBench record")
    .option("--json", "print the scores as JSON")
    .option(
      "--mode <mode>",
      "paper (corrected definitions) or upstream (bug-compatible with the published evaluator)",
      "paper",
    )
    .option(
      "--similarity <name>",
      "node similarity: token_char3_cosine_v1 (token-char) or bow_cosine_v1 (bow)",
      "token_char3_cosine_v1",
    )
    .option("--threshold <beta>", "match threshold β (default 0.6)")
    .action(async (pred, gold, opts) => worfAction(pred, gold, opts));

  evalCommand
    .command("resolve")
    .description("Chat2Workflow-style resolve stage: run each test case's workflow and check its outputs")
    .argument("<suite>", "suite JSON file (see src/eval/resolve-suite.ts), or the Chat2Workflow dataset folder")
    .option("--workflows <dir>", "Chat2Workflow dataset: folder of <Task>_<round>.json|yml workflows")
    .option(
      "--case-files <dir>",
      "Chat2Workflow dataset: folder of the test-case input files (default <suite>/case_files)",
    )
    .option("--json", "print the results as JSON")
    .option(
      "--judge-model <name>",
      "LLM judge for text outputs (routed by weft.config.json); without it the judged part is skipped",
    )
    .option("--concurrency <n>", "test cases run at once", "1")
    .option("--config <path>", "weft.config.json")
    .action(async (suite, opts) => resolveAction(suite, opts));
}
