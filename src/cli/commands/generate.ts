import { createInterface } from "node:readline/promises";
import type { Command } from "@commander-js/extra-typings";
import { analyse } from "../../analysis/index.js";
import { diffWorkflows, formatDiff } from "../../agent/diff.js";
import { generateWorkflow, type GenerationResult } from "../../agent/generate.js";
import { variableSummary, formatVariableSummary } from "../../dsl/compact/summary.js";
import { exportDify } from "../../dsl/dify/index.js";
import { formatDiagnostic } from "../../ir/diagnostics.js";
import type { ModelRef } from "../../ir/services.js";
import type { Workflow } from "../../ir/workflow.js";
import { createLlmService, describeConfigHelp, hasAnyEndpoint, loadLlmConfig } from "../../llm/index.js";
import { openStores } from "../../store/open.js";
import { DB_HELP, loadWeftConfig } from "../config.js";
import { readWorkflow, writeOut } from "../io.js";
import { CliError, EXIT } from "../output.js";

function agentLlm(configPath?: string) {
  const cfg = loadLlmConfig({ path: configPath });
  if (!hasAnyEndpoint(cfg)) throw new CliError("llm.not_configured", `no model is configured.\n${describeConfigHelp()}`, EXIT.usage);
  return createLlmService(cfg);
}

function report(r: GenerationResult): string {
  const lines = r.attempts.map(
    (a) =>
      `attempt ${a.attempt}: ${a.passed ? "passed" : `${a.problems.length} problem(s)`}${a.repairs.length ? `, repaired: ${[...new Set(a.repairs.map((x) => x.kind))].join(", ")}` : ""}`,
  );
  if (r.workflow) {
    lines.push(formatVariableSummary(variableSummary(r.workflow)));
    const diags = analyse(r.workflow).diagnostics;
    lines.push(`validation: ${diags.filter((d) => d.severity === "error").length} error(s), ${diags.filter((d) => d.severity === "warning").length} warning(s)`);
    for (const d of diags) lines.push(`  ${formatDiagnostic(d)}`);
  }
  if (!r.passed) for (const p of r.attempts.at(-1)?.problems ?? []) lines.push(`  ${formatDiagnostic(p)}`);
  return lines.join("\n");
}

export function registerGenerateCommands(program: Command): void {
  program
    .command("generate")
    .description("generate a workflow from an instruction (one shot), written as Dify YAML")
    .argument("<instruction>")
    .option("--from <file>", "start from this workflow (the instruction edits it)")
    .option("-o, --out <path>", "output Dify YAML (default: stdout)")
    .option("--model <name>", "model name for the agent (routed by weft.config.json / WEFT_LLM_*)")
    .option("--attempts <n>", "maximum attempts", "5")
    .option("--config <path>", "weft.config.json")
    .action(async (instruction, opts) => {
      const llm = agentLlm(opts.config);
      const current = opts.from ? (await readWorkflow(opts.from)).workflow : undefined;
      const model: ModelRef = { provider: "weft-agent", name: opts.model ?? "" };
      const r = await generateWorkflow({ llm, model, instruction, current, maxAttempts: Number(opts.attempts) });
      process.stderr.write(`${report(r)}\n`);
      if (!r.workflow) throw new CliError("generate.failed", "no workflow could be generated", EXIT.invalid);
      writeOut(opts.out, exportDify(r.workflow));
      process.exitCode = r.passed ? EXIT.ok : EXIT.invalid;
    });

  program
    .command("chat")
    .description("multi-turn chat that builds a workflow; each turn prints the summary and validation and writes the Dify YAML")
    .option("--session <id>", "resume this session")
    .option("-o, --out <path>", "Dify YAML written after each turn", "workflow.yml")
    .option("--db <spec>", DB_HELP)
    .option("--model <name>", "model name for the agent")
    .option("--config <path>", "weft.config.json")
    .action(async (opts) => {
      const llm = agentLlm(opts.config);
      const cfg = loadWeftConfig(opts.config);
      const stores = await openStores(opts.db ?? cfg.db);
      const store = stores.sessions;
      const model: ModelRef = { provider: "weft-agent", name: opts.model ?? "" };
      let sessionId = opts.session;
      if (sessionId && !(await store.exists(sessionId))) {
        await stores.close();
        throw new CliError("session.not_found", `no chat session ${sessionId}`);
      }
      sessionId ??= await store.create();
      process.stdout.write(`session ${sessionId} — type an instruction; /diff shows the last change, /quit ends\n`);
      const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: process.stdin.isTTY });
      let previous: Workflow | undefined;
      try {
        for await (const line of rl) {
          const text = line.trim();
          if (!text) continue;
          if (text === "/quit") break;
          const turns = await store.turns(sessionId);
          if (text === "/diff") {
            const versions = turns.filter((t) => t.workflow);
            const last = versions.at(-1)?.workflow;
            process.stdout.write(last ? `${formatDiff(diffWorkflows(versions.at(-2)?.workflow, last))}\n` : "no versions yet\n");
            continue;
          }
          const current = await store.current(sessionId);
          previous = current;
          const r = await generateWorkflow({ llm, model, instruction: text, history: await store.history(sessionId), current });
          await store.addTurn(sessionId, { instruction: text, answer: r.turn[1]?.content as string, passed: r.passed, workflow: r.workflow });
          process.stdout.write(`${report(r)}\n`);
          if (r.workflow) {
            writeOut(opts.out, exportDify(r.workflow));
            process.stdout.write(`changes: ${formatDiff(diffWorkflows(previous, r.workflow))}\nwrote ${opts.out}\n`);
          }
        }
      } finally {
        rl.close();
        await stores.close();
      }
    });
}
