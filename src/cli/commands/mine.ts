/**
 * `weft mine RECORDS --tools TOOLS -o WF.json` — mine a tool-calling workflow from task records.
 * `weft optimize WF.json --records RECORDS` — MCTS over graph edits; prints a table per iteration and
 * writes the best workflow, an SVG plot of the validation score by iteration and a JSON log.
 */
import { readFileSync, writeFileSync } from "node:fs";
import type { Command } from "@commander-js/extra-typings";
import cliProgress from "cli-progress";
import { llmJudge } from "../../eval/metrics/es.js";
import { lineChartSvg } from "../../eval/plot.js";
import type { ModelRef, ToolService, ToolSpec } from "../../ir/services.js";
import type { Workflow } from "../../ir/workflow.js";
import { createLlmService, hasAnyEndpoint, loadLlmConfig } from "../../llm/index.js";
import { dfgEdges, loadRecords, mineWorkflow, specsFromFunctions, splitRecords } from "../../mine/index.js";
import { Evaluator, judgeScorer, tokenF1Scorer } from "../../optimize/evaluate.js";
import { type MctsEvent, type MctsResult, optimiseWorkflow } from "../../optimize/mcts.js";
import { RecordedToolService } from "../../optimize/recorded-tools.js";
import { readWorkflow, writeOut } from "../io.js";
import { CliError, EXIT, printJson } from "../output.js";

function parseModel(raw: string, flag: string): ModelRef {
  const i = raw.indexOf("/");
  if (i <= 0 || i === raw.length - 1) throw new CliError("usage.model", `${flag} expects provider/name, got "${raw}"`);
  return { provider: raw.slice(0, i), name: raw.slice(i + 1) };
}

function num(raw: string, flag: string, opts: { int?: boolean; min?: number; max?: number } = {}): number {
  const n = Number(raw);
  const bad =
    !Number.isFinite(n) ||
    (opts.int && !Number.isInteger(n)) ||
    (opts.min !== undefined && n < opts.min) ||
    (opts.max !== undefined && n > opts.max);
  if (bad)
    throw new CliError(
      "usage.number",
      `${flag} expects ${opts.int ? "an integer" : "a number"}${opts.min !== undefined ? ` ≥ ${opts.min}` : ""}${opts.max !== undefined ? ` ≤ ${opts.max}` : ""}, got "${raw}"`,
    );
  return n;
}

function readTools(path: string): ToolSpec[] {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path, "utf8"));
  } catch (e) {
    throw new CliError("usage.tools", `cannot read tools file ${path}: ${(e as Error).message}`);
  }
  return specsFromFunctions(data);
}

/** The first model a workflow's LLM or tool-call node names. */
function workflowModel(wf: Workflow): ModelRef | undefined {
  for (const n of wf.nodes) {
    const m = (n.config as { model?: { provider?: string; name?: string } }).model;
    if (m?.name) return { provider: m.provider ?? "", name: m.name };
  }
  return undefined;
}

const f3 = (x: number) => (Number.isNaN(x) ? "—" : x.toFixed(3));

export function formatTable(r: MctsResult): string {
  const rows: string[][] = [["iteration", "candidate", "edits", "TC", "ES", "reward", "validation"]];
  rows.push(["0", "#0 (mined)", "—", f3(r.root.tc), f3(r.root.es), f3(r.root.reward), f3(r.root.validation)]);
  for (const h of r.history) {
    const edits = h.error
      ? `(optimiser failed: ${h.error})`
      : h.edits.length === 0
        ? `(nothing new${h.rejected ? `, ${h.rejected} rejected` : ""})`
        : `${h.edits.join("; ")}${h.rejected ? ` (+${h.rejected} rejected)` : ""}`;
    rows.push([
      String(h.iteration),
      h.child === undefined ? `from #${h.selected}` : `#${h.child} ← #${h.selected}${h.improved ? " *" : ""}`,
      edits.length > 70 ? `${edits.slice(0, 69)}…` : edits,
      f3(h.tc),
      f3(h.es),
      f3(h.reward),
      f3(h.validation),
    ]);
  }
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  const line = (r: string[]) =>
    r
      .map((cell, c) => cell.padEnd(widths[c]!))
      .join("  ")
      .trimEnd();
  return [line(rows[0]!), widths.map((w) => "-".repeat(w)).join("  "), ...rows.slice(1).map(line)].join("\n");
}

export function validationPlot(r: MctsResult): string {
  const candidates = [
    { x: 0, y: r.root.validation },
    ...r.history.filter((h) => !Number.isNaN(h.validation)).map((h) => ({ x: h.iteration, y: h.validation })),
  ];
  const best = [{ x: 0, y: r.root.validation }, ...r.history.map((h) => ({ x: h.iteration, y: h.bestValidation }))];
  return lineChartSvg(
    [
      { label: "candidate", points: candidates },
      { label: "best so far", points: best },
    ],
    { title: "Validation score by iteration", xLabel: "iteration", yLabel: "(TC + ES) / 2" },
  );
}

/** SOP-Bench tools answer only their own provider id; the mined nodes may name another. */
function withProvider(svc: ToolService & { providerId: string }): ToolService {
  return { list: () => svc.list?.() ?? [], invoke: (inv) => svc.invoke({ ...inv, providerId: svc.providerId }) };
}

export function registerMineCommands(program: Command): void {
  program
    .command("mine")
    .description("mine a tool-calling workflow from task records (Weft records or ToolBench answer logs)")
    .argument("<records>", "records file or directory")
    .option("--tools <file>", "tool catalogue: [{name, description, parameters}] (OpenAI function format accepted)")
    .option("-o, --out <path>", "workflow JSON (default: stdout)")
    .option("--model <provider/name>", "model of the workflow's LLM and tool-call nodes", "openai/gpt-4o-mini")
    .option("--noise <x>", "IMf noise threshold in [0,1] (0 = plain inductive miner)", "0")
    .option("--min-variant <n>", "ignore trace variants seen fewer times", "1")
    .option("--provider-id <id>", "tool provider id for the tool-call nodes", "")
    .option(
      "--choice-on <what>",
      "optional steps branch on the plan or on the previous step's outcome (plan | previous)",
      "plan",
    )
    .option("--all", "also use records that are not validated solutions (ToolBench: not won)")
    .option("--json", "print the process tree and DFG as JSON on stderr")
    .action(async (recordsPath, opts) => {
      const records = loadRecords(recordsPath, { validatedOnly: !opts.all });
      if (records.length === 0)
        throw new CliError("mine.no_records", `${recordsPath} holds no usable records`, EXIT.invalid);
      const tools = opts.tools ? readTools(opts.tools) : undefined;
      if (opts.choiceOn !== "plan" && opts.choiceOn !== "previous")
        throw new CliError("usage.choice_on", `--choice-on must be plan or previous, got "${opts.choiceOn}"`);
      const r = mineWorkflow(records, {
        model: parseModel(opts.model, "--model"),
        tools,
        providerId: opts.providerId,
        noise: num(opts.noise, "--noise", { min: 0, max: 1 }),
        minVariantCount: num(opts.minVariant, "--min-variant", { int: true, min: 1 }),
        name: "mined-workflow",
        choiceOn: opts.choiceOn,
      });
      writeOut(opts.out, JSON.stringify(r.workflow, null, 2));
      if (opts.json)
        process.stderr.write(
          `${JSON.stringify({ tree: r.treeText, dfg: dfgEdges(r.dfg), records: records.length }, null, 2)}\n`,
        );
      else {
        const positions = r.workflow.nodes.filter((n) => n.type === "tool-call").length;
        process.stderr.write(
          `mined ${records.length} records → ${r.treeText}\n${positions} tool-calling positions, ${r.workflow.nodes.length} nodes${opts.out ? ` → ${opts.out}` : ""}\n`,
        );
      }
    });

  program
    .command("optimize")
    .alias("optimise")
    .description("improve a workflow by MCTS over graph edits, scored by (TC + ES) / 2 on task records")
    .argument("<workflow>", "workflow (Weft JSON or Dify YAML)")
    .requiredOption("--records <path>", "task records file or directory")
    .option("--iterations <n>", "MCTS iterations", "30")
    .option("--patience <n>", "stop after this many iterations without a better validation score", "5")
    .option("--seed <n>", "seed of the 5:2:3 optimisation/validation/test split", "0")
    .option("--optimizer-model <provider/name>", "model that proposes edits (default: the workflow's model)")
    .option("--es <scorer>", "ES scorer: judge (LLM, G-Eval style) or token-f1 (deterministic)", "judge")
    .option("--judge-model <provider/name>", "model of the ES judge (default: the optimiser model)")
    .option("--tools <file>", "tool catalogue for the replay tool environment")
    .option("--sopbench <domain>", "run tools in the SOP-Bench environment of this domain instead of replaying logs")
    .option("--concurrency <n>", "task runs in flight at once", "8")
    .option("--all", "also use records that are not validated solutions")
    .option("-o, --out <path>", "best workflow JSON (default: stdout)")
    .option("--plot <svg>", "SVG plot of the validation score by iteration")
    .option("--log <json>", "JSON log of every tree node and iteration")
    .option("--config <path>", "weft.config.json (llm section)")
    .option("--json", "print the final table as JSON")
    .action(async (file, opts) => {
      const { workflow } = await readWorkflow(file);
      const records = loadRecords(opts.records, { validatedOnly: !opts.all });
      if (records.length < 3)
        throw new CliError(
          "optimize.too_few_records",
          `need at least 3 records for a 5:2:3 split, got ${records.length}`,
          EXIT.invalid,
        );
      const split = splitRecords(records, num(opts.seed, "--seed", { int: true }));
      const llmConfig = loadLlmConfig({ path: opts.config });
      if (!hasAnyEndpoint(llmConfig))
        throw new CliError(
          "optimize.no_llm",
          "no LLM endpoint is configured (weft.config.json `llm` section or environment); the optimiser needs one",
        );
      const llm = createLlmService(llmConfig);
      const model = opts.optimizerModel
        ? parseModel(opts.optimizerModel, "--optimizer-model")
        : workflowModel(workflow);
      if (!model)
        throw new CliError("usage.model", "the workflow names no model; pass --optimizer-model provider/name");
      const judgeModel = opts.judgeModel ? parseModel(opts.judgeModel, "--judge-model") : model;
      if (opts.es !== "judge" && opts.es !== "token-f1")
        throw new CliError("usage.es", `--es must be judge or token-f1, got "${opts.es}"`);
      const scorer = opts.es === "judge" ? judgeScorer(llmJudge(llm, judgeModel)) : tokenF1Scorer;
      let tools: ToolService;
      if (opts.sopbench) {
        const { SopBenchToolService } = await import("../../eval/sopbench/index.js");
        tools = withProvider(new SopBenchToolService(opts.sopbench));
      } else tools = new RecordedToolService(records, opts.tools ? readTools(opts.tools) : undefined);
      const evaluator = new Evaluator({
        services: { llm, tools },
        scorer,
        concurrency: num(opts.concurrency, "--concurrency", { int: true, min: 1 }),
      });
      const iterations = num(opts.iterations, "--iterations", { int: true, min: 1 });
      const tty = process.stderr.isTTY === true && !opts.json;
      const bar = tty
        ? new cliProgress.SingleBar(
            { format: "optimising [{bar}] {value}/{total} | best validation {best} | {last}", hideCursor: true },
            cliProgress.Presets.shades_classic,
          )
        : undefined;
      const onEvent = (e: MctsEvent) => {
        if (e.type === "root") {
          bar?.start(iterations, 0, { best: f3(e.node.validation), last: "mined workflow scored" });
          if (!bar) process.stderr.write(`root: reward ${f3(e.node.reward)}, validation ${f3(e.node.validation)}\n`);
        } else if (e.type === "iteration") {
          const h = e.record;
          const last = h.child === undefined ? "nothing new" : `#${h.child}: reward ${f3(h.reward)}`;
          if (bar) bar.update(h.iteration, { best: f3(h.bestValidation), last });
          else
            process.stderr.write(
              `iteration ${h.iteration}: ${last}, validation ${f3(h.validation)}, best ${f3(h.bestValidation)}\n`,
            );
        } else if (e.type === "stopped") {
          bar?.stop();
          process.stderr.write(`stopped after ${e.iterations} iteration(s): ${e.reason}\n`);
        }
      };
      const r = await optimiseWorkflow(workflow, {
        llm,
        model,
        evaluator,
        split,
        iterations,
        patience: num(opts.patience, "--patience", { int: true, min: 1 }),
        tools: await tools.list?.(),
        onEvent,
      });
      if (opts.json)
        printJson({
          best: r.best.id,
          history: r.history,
          test: r.test ? { tc: r.test.tc, es: r.test.es, reward: r.test.reward } : null,
        });
      else {
        process.stdout.write(`${formatTable(r)}\n`);
        process.stdout.write(
          `best: #${r.best.id} validation ${f3(r.best.validation)}${r.test ? `, test reward ${f3(r.test.reward)} (TC ${f3(r.test.tc)}, ES ${f3(r.test.es)})` : ""}; ${evaluator.runs} evaluations, ${evaluator.hits} cache hits\n`,
        );
      }
      if (opts.out) writeOut(opts.out, JSON.stringify(r.best.workflow, null, 2));
      else if (opts.json) process.stderr.write("(pass -o to write the best workflow)\n");
      else process.stdout.write(`${JSON.stringify(r.best.workflow, null, 2)}\n`);
      if (opts.plot) writeFileSync(opts.plot, validationPlot(r));
      if (opts.log)
        writeFileSync(
          opts.log,
          JSON.stringify(
            {
              split: {
                optimisation: split.optimisation.map((x) => x.id),
                validation: split.validation.map((x) => x.id),
                test: split.test.map((x) => x.id),
              },
              nodes: r.nodes.map((n) => ({
                id: n.id,
                parent: n.parent ?? null,
                iteration: n.iteration,
                edits: n.edits,
                rejected: n.rejected,
                rationale: n.rationale,
                visits: n.visits,
                totalReward: n.totalReward,
                reward: n.reward,
                tc: n.tc,
                es: n.es,
                validation: n.validation,
                hash: n.hash,
              })),
              history: r.history,
              best: r.best.id,
              stopReason: r.stopReason,
            },
            null,
            2,
          ),
        );
    });
}
