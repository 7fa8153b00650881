/**
 * `weft eval …`: benchmark evaluations. Each subcommand is registered by its own function below, so
 * adding one is a new `registerXxx(group)` call in registerEvalCommands.
 */
import type { Command } from "@commander-js/extra-typings";
import cliProgress from "cli-progress";
import {
  createLlmPassJudge,
  evaluatePassSuite,
  type JudgedEvaluation,
  loadAnswers,
  loadSuite,
  type PassJudge,
  type PassSuiteResult,
  type RateSet,
  renderPassReport,
} from "../../eval/pass.js";
import { createLlmService, hasAnyEndpoint, loadLlmConfig } from "../../llm/index.js";
import { writeOut } from "../io.js";
import { printJson } from "../output.js";

/** A progress bar on stderr when it is a terminal (and output is not JSON); otherwise nothing. */
function progressBar(
  label: string,
  enabled: boolean,
): { update: (done: number, total: number) => void; stop: () => void } {
  if (!enabled || !process.stderr.isTTY) return { update: () => {}, stop: () => {} };
  const bar = new cliProgress.SingleBar(
    { format: `${label} [{bar}] {value}/{total}`, stream: process.stderr, hideCursor: true },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  return {
    update: (done, total) => {
      if (!started) {
        bar.start(total, 0);
        started = true;
      }
      bar.update(done);
    },
    stop: () => started && bar.stop(),
  };
}

const pct = (n: number | undefined, d: number) =>
  n === undefined ? "–" : `${n}/${d} = ${d ? ((100 * n) / d).toFixed(2) : "0.00"}%`;

function textSummary(r: PassSuiteResult): string {
  const s = r.summary;
  const line = (label: string, f: (x: RateSet) => number | undefined) =>
    `  ${label.padEnd(44)} ${pct(f(s.strict), s.total).padEnd(18)}${s.repaired ? ` repaired: ${pct(f(s.repaired), s.total)}` : ""}`;
  const out = [
    `${s.paper?.name ?? s.model}: ${s.total} answers`,
    line("steps 1_1–1_3", (x) => x.passed13),
    line("pass (paper's deterministic checks)", (x) => x.deterministic),
    line("pass + Weft analyser clean", (x) => x.analyserClean),
    s.judge === "used"
      ? line("pass with the LLM judge", (x) => x.judged)
      : "  LLM-judged checks (step_1_4): skipped — no judge configured",
  ];
  if (s.recorded) out.push(`  recorded upstream verdict: ${pct(s.recorded.passed, s.recorded.total)}`);
  if (s.paper) out.push(`  paper (Table 1, 3-run average): ${s.paper.rate.toFixed(2)}%`);
  if (s.agreement) out.push(`  agreement with recorded steps 1_1–1_3: ${pct(s.agreement.agree, s.agreement.total)}`);
  if (s.repairTable)
    out.push(`  repairs (failed → fixed): ${s.repairTable.map((k) => `${k.kind} ${k.failed}→${k.fixed}`).join(", ")}`);
  return out.join("\n");
}

const brief = (e: JudgedEvaluation | undefined) =>
  e && {
    failStep: e.failStep ?? null,
    passDeterministic: e.passDeterministic,
    passAnalyserClean: e.passAnalyserClean,
    passJudged: e.passJudged,
    codes: [
      ...new Set(
        Object.values(e.steps).flatMap(
          (st) => st?.diagnostics.filter((d) => d.severity === "error").map((d) => d.code) ?? [],
        ),
      ),
    ],
    analyserCodes: [...new Set(e.analyserErrors.map((d) => d.code))],
    repairs: e.repairs.map((x) => x.kind),
    judgeReason: e.judge?.reason,
  };

function registerPass(group: Command): void {
  group
    .command("pass")
    .description(
      "Chat2Workflow pass stage over recorded or generated answers (format, conversion, variables, node selection; optional LLM judge)",
    )
    .argument(
      "<suite>",
      "the chat2workflow dataset folder (holding dataset/query.json and dataset/check_pass_stage.json)",
    )
    .requiredOption(
      "--answers <file>",
      "answers JSON: a list of {task, round, node_selection, design_principle, workflow} or {task, round, answer}",
    )
    .option("--repair", "also evaluate after the auto-repairs and report what they fixed")
    .option("--json", "print the summary and per-answer results as JSON")
    .option("--report <file>", "write a Markdown report")
    .option("--no-judge", "skip the LLM judge even when a model is configured")
    .option(
      "--judge-model <name>",
      "model for the judge, routed by weft.config.json / WEFT_LLM_* (an endpoint's own model wins)",
      "gpt-5.1",
    )
    .option("--config <path>", "weft.config.json")
    .option("--concurrency <n>", "parallel judge calls", "4")
    .action(async (suiteDir, opts) => {
      const suite = loadSuite(suiteDir);
      const { model, records } = loadAnswers(opts.answers);
      let judge: PassJudge | undefined;
      if (opts.judge) {
        const cfg = loadLlmConfig({ path: opts.config });
        if (hasAnyEndpoint(cfg))
          judge = createLlmPassJudge(createLlmService(cfg), { provider: "weft-judge", name: opts.judgeModel });
      }
      if (judge)
        process.stderr.write(
          `judging step_1_4 with model "${opts.judgeModel}" (use --no-judge for the deterministic checks only)\n`,
        );
      const bar = progressBar(`pass ${model}`, !opts.json);
      let result: PassSuiteResult;
      try {
        result = await evaluatePassSuite(suite, records, model, {
          repair: !!opts.repair,
          judge,
          concurrency: Number(opts.concurrency) || 4,
          onProgress: bar.update,
        });
      } finally {
        bar.stop();
      }
      if (opts.report) writeOut(opts.report, renderPassReport(result));
      if (opts.json) {
        printJson({
          summary: result.summary,
          items: result.items.map((i) => ({
            key: i.instruction.key,
            domain: i.instruction.domain,
            failureKind: i.failureKind ?? null,
            recorded: i.record.recorded ?? null,
            strict: brief(i.strict),
            repaired: brief(i.repaired),
          })),
        });
      } else process.stdout.write(`${textSummary(result)}\n${opts.report ? `report written to ${opts.report}\n` : ""}`);
    });
}

export function registerEvalCommands(program: Command): void {
  const group = program.command("eval").description("benchmark evaluations");
  registerPass(group);
}
