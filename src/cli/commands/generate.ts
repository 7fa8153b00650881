import { resolve } from "node:path";
import type { Command } from "@commander-js/extra-typings";
import { type GenerationResult, generateWorkflow } from "../../authoring/generate.js";
import { describeOutcome, rejectedOutcome } from "../../authoring/outcome.js";
import type { Proposal } from "../../authoring/proposal.js";
import { formatVariableSummary, variableSummary } from "../../dsl/compact/summary.js";
import { CURRENT_DSL_VERSION, exportDify } from "../../dsl/dify/index.js";
import { formatDiagnostic } from "../../ir/diagnostics.js";
import { formatDiff } from "../../ir/diff.js";
import type { ModelRef } from "../../ir/services.js";
import type { Workflow } from "../../ir/workflow.js";
import {
  configuredNodeModel,
  createLlmService,
  describeConfigHelp,
  hasAnyEndpoint,
  type LlmConfig,
  loadLlmConfig,
} from "../../llm/index.js";
import { readWorkflow, writeOut } from "../io.js";
import { CliError, EXIT } from "../output.js";

export interface AgentSetup {
  llm: ReturnType<typeof createLlmService>;
  model: ModelRef;
  cfg: LlmConfig;
  /** The model of nodes the model adds. */
  nodeModel?: { provider: string; name: string };
}

export function agentSetup(configPath: string | undefined, modelName: string | undefined): AgentSetup {
  const cfg = loadLlmConfig({ path: configPath });
  if (!hasAnyEndpoint(cfg))
    throw new CliError("llm.not_configured", `no model is configured.\n${describeConfigHelp()}`, EXIT.usage);
  const nodeModel = configuredNodeModel(cfg, modelName);
  return {
    llm: createLlmService(cfg),
    model: { provider: "weft-agent", name: modelName ?? "" },
    cfg,
    ...(nodeModel ? { nodeModel } : {}),
  };
}

/** Our own output is written in the current DSL version (re-importing it never warns that it is old). */
export function writeWorkflowYaml(path: string | undefined, wf: Workflow): string {
  writeOut(path, exportDify(wf, { version: CURRENT_DSL_VERSION }));
  return !path || path === "-" ? "stdout" : resolve(path);
}

export function attemptsReport(r: GenerationResult): string {
  return r.attempts
    .map(
      (a) =>
        `attempt ${a.attempt}: ${a.passed ? "passed" : `${a.problems.length} problem(s)`}${a.repairs.length ? `, repaired: ${[...new Set(a.repairs.map((x) => x.kind))].join(", ")}` : ""}`,
    )
    .join("\n");
}

/** A proposal as the CLI shows it: summary, field-level diff, and the analyser's findings. */
export function proposalReport(p: Pick<Proposal, "summary" | "diff" | "diagnostics">): string {
  const errors = p.diagnostics.filter((d) => d.severity === "error").length;
  return [
    `changes: ${p.summary}`,
    formatDiff(p.diff),
    `validation: ${errors} error(s), ${p.diagnostics.length - errors} warning(s)`,
    ...p.diagnostics.map((d) => `  ${formatDiagnostic(d)}`),
  ].join("\n");
}

/** The rejection as the user sees it: the last attempt's diagnostics and that nothing changed. */
export function rejectionReport(r: GenerationResult): string {
  return describeOutcome(rejectedOutcome(r.attempts.at(-1)?.problems ?? []));
}

export function registerGenerateCommands(program: Command): void {
  program
    .command("generate")
    .description("generate a workflow from an instruction (or, with --from, edit one), written as Dify YAML")
    .argument("<instruction>")
    .option("--from <file>", "start from this workflow (the instruction edits it; the diff is printed)")
    .option("-o, --out <path>", "output Dify YAML (default: stdout)")
    .option("--model <name>", "model name for the agent (routed by weft.config.json / WEFT_LLM_*)")
    .option("--attempts <n>", "maximum attempts", "5")
    .option("--config <path>", "weft.config.json")
    .action(async (instruction, opts) => {
      const a = agentSetup(opts.config, opts.model);
      const current = opts.from ? (await readWorkflow(opts.from)).workflow : undefined;
      const r = await generateWorkflow({
        llm: a.llm,
        model: a.model,
        instruction,
        current,
        maxAttempts: Number(opts.attempts),
        compact: a.nodeModel ? { llmModel: a.nodeModel } : {},
      });
      process.stderr.write(`${attemptsReport(r)}\n`);
      if (!r.passed || !r.workflow || !r.proposal) {
        process.stderr.write(`${rejectionReport(r)}\nno file written\n`);
        process.exitCode = EXIT.invalid;
        return;
      }
      process.stderr.write(`${formatVariableSummary(variableSummary(r.workflow))}\n${proposalReport(r.proposal)}\n`);
      const where = writeWorkflowYaml(opts.out, r.workflow);
      process.stderr.write(where === "stdout" ? "wrote the Dify YAML to stdout\n" : `wrote ${where}\n`);
    });
}
