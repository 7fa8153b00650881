import { existsSync, readFileSync } from "node:fs";
import type { Command } from "@commander-js/extra-typings";
import { type CompileReport, compileSop, readToolCatalog } from "../../compile/index.js";
import type { BurdenSummary } from "../../compile/optimise.js";
import type { ModelRef } from "../../ir/services.js";
import { createLlmService, describeConfigHelp, hasAnyEndpoint, loadLlmConfig } from "../../llm/index.js";
import { writeOut } from "../io.js";
import { CliError, EXIT } from "../output.js";

function readText(path: string, what: string): string {
  if (!existsSync(path)) throw new CliError("file.not_found", `no such ${what} file: ${path}`, EXIT.usage);
  return readFileSync(path, "utf8");
}

function readJson(path: string, what: string): unknown {
  const text = readText(path, what);
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new CliError("file.invalid_json", `${what} file ${path} is not JSON: ${(e as Error).message}`, EXIT.usage);
  }
}

function burdenLine(label: string, b: BurdenSummary): string {
  return `${label}: ${b.steps} steps, ${b.nodes} nodes, max burden ${b.maxScore} (cyclomatic ${b.maxCyclomatic}, context ${b.maxContextTokens} tokens), over threshold: ${b.overThreshold.join(", ") || "none"}`;
}

/** The human summary the command prints: burden before/after, obligations, scenarios, disagreements. */
export function formatCompileSummary(r: CompileReport): string {
  const lines = [
    burdenLine("burden before", r.burden.before),
    burdenLine("burden after ", r.burden.after),
    `burden rounds: ${r.burden.rounds.map((x) => `${x.round}:${x.accepted ? "accepted" : `rejected (${x.rejectedBecause})`}`).join("; ") || "none needed"}`,
    `static check: ${r.static.errors.length} error(s), ${r.static.warnings.length} warning(s)`,
    `obligations checked: ${r.obligationsChecked} (${r.obligationsFailed} failed)`,
    `scenarios run: ${r.scenariosRun} over ${r.faithfulness.length} dry-run round(s)`,
    `disagreements found: ${r.disagreementsFound}, fixed: ${r.disagreementsFixed}, remaining: ${r.disagreementsRemaining.length}`,
    `re-drafts: ${r.redrafts}`,
    `result: ${r.passed ? "passed" : "NOT verified (see the findings above)"}`,
  ];
  for (const d of r.disagreementsRemaining)
    lines.push(
      `  disagreement: ${d.decision} via ${d.construct} at ${JSON.stringify(d.scenario)}: SOP ${d.source}, compiled ${d.compiled}`,
    );
  for (const f of r.faithfulness.at(-1)?.obligations.filter((o) => !o.holds) ?? [])
    lines.push(`  failed obligation: ${f.kind} ${f.construct}: ${f.reason}`);
  return lines.join("\n");
}

export function registerCompileCommands(program: Command): void {
  program
    .command("compile")
    .description("compile a natural-language procedure (SOP) into a verified artifact-driven workflow (Weft JSON)")
    .argument("<sop>", "SOP text file")
    .requiredOption(
      "--tools <file>",
      "tool specs JSON (list of specs, SOP-Bench toolspecs.json, or {providerId, tools})",
    )
    .option("-o, --out <path>", "output Weft JSON (default: stdout)")
    .option("--report", "also print the full compile report as JSON (to stdout, or <out>.report.json with -o)")
    .option("--model <name>", "model for the compile-time calls and the compiled llm/agent nodes")
    .option("--provider <id>", "provider id the compiled tool nodes call (default: from the tools file, else 'tools')")
    .option("--rounds <n>", "burden optimisation rounds", "3")
    .option("--redrafts <n>", "faithfulness re-drafts", "3")
    .option("--config <path>", "weft.config.json")
    .action(async (sopPath, opts) => {
      const sop = readText(sopPath, "SOP");
      const tools = readToolCatalog(readJson(opts.tools, "tool specs"), opts.provider);
      const cfg = loadLlmConfig({ path: opts.config });
      if (!hasAnyEndpoint(cfg))
        throw new CliError("llm.not_configured", `no model is configured.\n${describeConfigHelp()}`, EXIT.usage);
      const llm = createLlmService(cfg);
      const model: ModelRef = {
        provider: "weft-compile",
        name: opts.model ?? "",
        mode: "chat",
        completion_params: { temperature: 0 },
      };
      const r = await compileSop({
        sop,
        tools,
        llm,
        model,
        rounds: Number(opts.rounds),
        redrafts: Number(opts.redrafts),
        onProgress: (m) => process.stderr.write(`… ${m}\n`),
      });
      process.stderr.write(`${formatCompileSummary(r.report)}\n`);
      writeOut(opts.out, JSON.stringify(r.workflow, null, 2));
      if (opts.report)
        writeOut(
          opts.out ? `${opts.out.replace(/\.json$/, "")}.report.json` : undefined,
          JSON.stringify({ model: r.model, report: r.report }, null, 2),
        );
      process.exitCode = r.report.passed ? EXIT.ok : EXIT.invalid;
    });
}
