/**
 * `weft eval workflows` (answers → `<Task>_<round>.yml` for the pass-stage survivors) and
 * `weft eval chat2workflow` (pass + resolve for one answers file, with the end-state report). Services
 * come from weft.config.json through the standard wiring (src/runtime/services.ts), so the configured
 * model endpoints, tools and file store are the ones the workflows run on.
 */
import type { Command } from "@commander-js/extra-typings";
import { writeAnswerWorkflows } from "../../eval/answer-workflows.js";
import { runChat2Workflow } from "../../eval/chat2workflow.js";
import { step14Text } from "../../eval/chat2workflow-report.js";
import { type Fidelity, parseFidelity } from "../../eval/fidelity.js";
import type { ResolveJudgeFn } from "../../eval/metrics/resolve.js";
import { createLlmPassJudge, loadAnswers, loadSuite, type PassJudge } from "../../eval/pass.js";
import { createUpstreamPassJudge, UPSTREAM_JUDGE_PARAMS } from "../../eval/upstream/pass-judge.js";
import { loadUpstreamPrompt, type UpstreamPrompt } from "../../eval/upstream/prompts.js";
import { WeftError } from "../../ir/errors.js";
import type { ModelRef } from "../../ir/services.js";
import { createLlmService, describeConfigHelp, hasAnyEndpoint, loadLlmConfig } from "../../llm/index.js";
import { buildServices } from "../../runtime/services.js";
import { loadWeftConfig } from "../config.js";
import { CliError, EXIT, printJson } from "../output.js";

function llmOrFail(configPath: string | undefined, flag: string) {
  const cfg = loadLlmConfig({ path: configPath });
  if (!hasAnyEndpoint(cfg))
    throw new CliError("llm.not_configured", `${flag} needs a model endpoint.\n${describeConfigHelp()}`, EXIT.usage);
  return createLlmService(cfg);
}

/** R11: under upstream fidelity the step_1_4 judge is upstream's (its prompt read from `upstreamDir`). */
function passJudgeFrom(
  configPath: string | undefined,
  model: string | undefined,
  fidelity: Fidelity,
  upstreamDir: string,
): PassJudge | undefined {
  if (!model) return undefined;
  const llm = llmOrFail(configPath, "--pass-judge-model");
  const ref = { provider: "weft-judge", name: model };
  if (fidelity === "upstream") return createUpstreamPassJudge(llm, ref, loadUpstreamPrompt(upstreamDir, "pass").system);
  return createLlmPassJudge(llm, ref);
}

class JudgeReplyError extends WeftError {}

/**
 * The resolve judge over the configured endpoints. Weft's: one user message, temperature 0. Upstream's
 * (R2): system + user messages, temperature 0 and max_tokens 8192 (bash_resolve_stage.sh:4-5). A reply
 * with no content is an outage, not a verdict (upstream's `.split` on None would stop its script).
 */
export function resolveJudgeFrom(
  configPath: string | undefined,
  model: string | undefined,
  fidelity: Fidelity = "weft",
): ResolveJudgeFn | undefined {
  if (!model) return undefined;
  const llm = llmOrFail(configPath, "--judge-model");
  const ref: ModelRef = {
    provider: "weft-judge",
    name: model,
    completion_params: fidelity === "upstream" ? { ...UPSTREAM_JUDGE_PARAMS } : { temperature: 0 },
  };
  return async ({ prompt, system }) => {
    const res = await llm.chat({
      model: ref,
      messages: [
        ...(system !== undefined ? [{ role: "system" as const, content: system }] : []),
        { role: "user", content: prompt },
      ],
    });
    if (typeof res.text !== "string")
      throw new JudgeReplyError("resolve.judge_no_reply", `judge model ${model} answered with no text`, { model });
    return res.text;
  };
}

function positive(raw: string, flag: string): number {
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0)
    throw new CliError("usage.invalid_number", `${flag} must be a positive number, got "${raw}"`);
  return n;
}

export function registerChat2WorkflowCommands(evalCommand: Command): void {
  evalCommand
    .command("workflows")
    .description("Chat2Workflow answers → <Task>_<round>.yml workflow files for the answers that pass the pass stage")
    .argument("<dataset>", "the chat2workflow folder (holding dataset/query.json and dataset/check_pass_stage.json)")
    .requiredOption("--answers <file>", "answers JSON (recorded model outputs or {task, round, answer} records)")
    .requiredOption("-o, --out <dir>", "folder for the workflow files and manifest.json")
    .option("--repair", "run the auto-repairs before the checks (Weft fidelity only)")
    .option("--pass-judge-model <name>", "decide step_1_4 with this LLM judge instead of the deterministic stand-in")
    .option("--fidelity <mode>", "upstream: Chat2Workflow's own rules; weft: Weft's stricter ones", "upstream")
    .option("--upstream-dir <dir>", "checkout of zjunlp/Chat2Workflow holding prompts/ (default: <dataset>)")
    .option("--config <path>", "weft.config.json")
    .option("--json", "print the manifest as JSON")
    .action(async (dataset, opts) => {
      const fidelity = parseFidelity(opts.fidelity);
      const { model, records } = loadAnswers(opts.answers);
      const r = await writeAnswerWorkflows(loadSuite(dataset), records, model, opts.out, {
        repair: !!opts.repair,
        judge: passJudgeFrom(opts.config, opts.passJudgeModel, fidelity, opts.upstreamDir ?? dataset),
        fidelity,
      });
      if (opts.json) return printJson({ ...r, pass: undefined });
      const failed = r.entries.filter((e) => !e.survived);
      const bySteps = new Map<string, number>();
      for (const e of failed) bySteps.set(e.failStep ?? "?", (bySteps.get(e.failStep ?? "?") ?? 0) + 1);
      process.stdout.write(
        `${model}: ${r.written} of ${r.total} answers pass the pass stage (${step14Text(r)}); wrote ${r.written} workflow files to ${r.dir}\n` +
          `failed: ${[...bySteps].map(([s, n]) => `${s} ${n}`).join(", ") || "none"} (their cases count 0 in the resolve stage)\n` +
          `manifest: ${r.dir}/manifest.json\n`,
      );
    });

  evalCommand
    .command("chat2workflow")
    .description("Chat2Workflow pass + resolve for one answers file: runs every test case and reports where each ends")
    .argument("<dataset>", "the chat2workflow folder (dataset/ and case_files/)")
    .requiredOption("--answers <file>", "answers JSON (recorded model outputs or {task, round, answer} records)")
    .requiredOption("--out <dir>", "folder for workflows/, report.md and report.json")
    .option("--case-files <dir>", "the test-case input files (default <dataset>/case_files)")
    .option("--repair", "run the auto-repairs before the pass checks (Weft fidelity only)")
    .option("--pass-judge-model <name>", "decide step_1_4 with this LLM judge instead of the deterministic stand-in")
    .option("--judge-model <name>", "LLM judge for text outputs (resolve stage); without it they are reported unjudged")
    .option("--fidelity <mode>", "upstream: Chat2Workflow's own rules; weft: Weft's stricter ones", "upstream")
    .option("--upstream-dir <dir>", "checkout of zjunlp/Chat2Workflow holding prompts/ (default: <dataset>)")
    .option("--concurrency <n>", "test cases run at once", "4")
    .option(
      "--case-timeout <seconds>",
      "cancel a case still running after this long (default: none upstream, 300 weft)",
    )
    .option("--config <path>", "weft.config.json (models, tools, files, HTTP policy)")
    .option("--json", "print the end states and summaries as JSON")
    .action(async (dataset, opts) => {
      const fidelity = parseFidelity(opts.fidelity);
      const upstreamDir = opts.upstreamDir ?? dataset;
      const judgeModel = opts.judgeModel ?? process.env.WEFT_JUDGE_MODEL;
      // Read before any work: a missing upstream prompt should stop the run, not its 237th case.
      const upstreamPrompt: UpstreamPrompt | undefined =
        fidelity === "upstream" && judgeModel ? loadUpstreamPrompt(upstreamDir, "resolve") : undefined;
      if (upstreamPrompt && !upstreamPrompt.matchesUpstream)
        process.stderr.write(
          `warning: ${upstreamPrompt.path} is not upstream's file (sha256 ${upstreamPrompt.sha256.slice(0, 12)}…): the judge prompt is not byte-for-byte upstream's\n`,
        );
      const { model, records } = loadAnswers(opts.answers);
      const cfg = loadWeftConfig(opts.config);
      const services = await buildServices(cfg, { configPath: opts.config });
      const r = await runChat2Workflow({
        datasetDir: dataset,
        ...(opts.caseFiles ? { caseFilesDir: opts.caseFiles } : {}),
        suite: loadSuite(dataset),
        records,
        model,
        outDir: opts.out,
        services,
        passJudge: passJudgeFrom(opts.config, opts.passJudgeModel, fidelity, upstreamDir),
        resolveJudge: resolveJudgeFrom(opts.config, judgeModel, fidelity),
        repair: !!opts.repair,
        concurrency: Math.round(positive(opts.concurrency, "--concurrency")),
        ...(opts.caseTimeout !== undefined
          ? { caseTimeoutMs: positive(opts.caseTimeout, "--case-timeout") * 1000 }
          : {}),
        fidelity,
        upstreamPrompt,
      });
      if (opts.json)
        return printJson({
          model,
          fidelity,
          survived: r.workflows.written,
          instructions: r.workflows.total,
          passed: r.resolve.passed,
          failed: r.resolve.failed,
          skipped: r.resolve.skipped,
          unknown: r.resolve.unknown,
          cases: r.resolve.cases,
          endStates: r.report.cases,
          byEndState: r.report.byEndState,
          fileChecks: r.report.fileChecks,
          tools: r.report.tools,
          report: r.files,
        });
      const s = r.resolve;
      process.stdout.write(
        [
          ...r.report.lines,
          "",
          `${model} (${fidelity} rules): pass stage ${r.workflows.written}/${r.workflows.total}; resolve ${s.passed} passed, ${s.failed} failed, ${s.skipped} not judged, ${s.unknown} unknown (judge outage, left out) of ${s.cases}`,
          `end states: ${Object.entries(r.report.byEndState)
            .sort((a, b) => b[1] - a[1])
            .map(([k, n]) => `${k} ${n}`)
            .join(", ")}`,
          `file checks: ${r.report.fileChecks.map((f) => `${f.extension} ${f.right}/${f.checked} right (${f.required} required)`).join(", ")}`,
          `report: ${r.files.markdown}`,
          "",
        ].join("\n"),
      );
    });
}
