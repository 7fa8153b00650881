import type { Command } from "@commander-js/extra-typings";
import { analyse } from "../../analysis/index.js";
import { describeNode } from "../../ir/describe.js";
import { type Diagnostic, formatDiagnostic, hasErrors } from "../../ir/diagnostics.js";
import type { Workflow } from "../../ir/workflow.js";
import { nodeTypesFor } from "../../nodes/registry.js";
import { toolUses, unservedDiagnostics } from "../../tools/configured/check.js";
import { loadWeftConfig } from "../config.js";
import { readWorkflow, writeOut } from "../io.js";
import { CliError, EXIT, printJson } from "../output.js";

/**
 * tool.unserved warnings against weft.config.json; nothing is started or contacted. The services (model
 * providers, MCP, tool catalogues: most of a validate's start-up) load only for a workflow that uses tools.
 */
async function unservedTools(workflow: Workflow, config?: string): Promise<Diagnostic[]> {
  const cfg = loadWeftConfig(config);
  if (toolUses(workflow).length === 0) return [];
  const { buildServices } = await import("../../runtime/services.js");
  const services = await buildServices(cfg, { configPath: config });
  try {
    return await unservedDiagnostics(workflow, services.tools);
  } finally {
    await services.close();
  }
}

export function registerStaticCommands(program: Command): void {
  program
    .command("validate")
    .description("check a workflow (Dify YAML or Weft JSON); exit 0 when valid, 1 when not")
    .argument("<file>")
    .option("--json", "print diagnostics as JSON")
    .option("--config <path>", "weft.config.json (tool nodes nothing serves get a tool.unserved warning)")
    .action(async (file, opts) => {
      const { workflow, warnings } = await readWorkflow(file);
      // The workflow's own node types only (start-up): analysing against them is the same as against all.
      const { diagnostics } = analyse(workflow, await nodeTypesFor(workflow));
      const all = [...warnings, ...diagnostics, ...(await unservedTools(workflow, opts.config))];
      const valid = !hasErrors(all);
      if (opts.json) printJson({ valid, diagnostics: all });
      else {
        for (const d of all) process.stdout.write(`${formatDiagnostic(d)}\n`);
        const errors = all.filter((d) => d.severity === "error").length;
        process.stdout.write(
          `${valid ? "valid" : "invalid"}: ${errors} error(s), ${all.length - errors} warning(s)/info\n`,
        );
      }
      process.exitCode = valid ? EXIT.ok : EXIT.invalid;
    });

  program
    .command("import")
    .description("import a Dify DSL YAML file into Weft JSON")
    .argument("<file>")
    .option("-o, --out <path>", "output file (default: stdout)")
    .action(async (file, opts) => {
      const { workflow, warnings } = await readWorkflow(file);
      for (const w of warnings) process.stderr.write(`${formatDiagnostic(w)}\n`);
      // Dify exports secrets blank: say which ones the app will need, and how they are set once it is one.
      for (const v of workflow.environment_variables)
        if (v.value_type === "secret" && (v.value === undefined || v.value === ""))
          process.stderr.write(
            `warning env.secret_empty: the secret env.${v.name} is empty; once imported as an app (weft apps import), set it with \`weft env set APP_ID ${v.name} --secret\` (value on stdin)\n`,
          );
      writeOut(opts.out, JSON.stringify(workflow, null, 2));
    });

  program
    .command("export")
    .description("export a workflow to Dify YAML, Mermaid or Coze canvas JSON")
    .argument("[file]", "a workflow file (or --app)")
    .option(
      "--app <id>",
      "export an app of the database instead: its current version, stored values of its non-secret variables, secrets blank",
    )
    .option("--db <spec>", "the database of --app (default from config: weft.db)")
    .option("--config <path>", "weft.config.json")
    .requiredOption("--to <format>", "dify | mermaid | coze")
    .option("-o, --out <path>", "output file (default: stdout)")
    .option(
      "--flow",
      "coze: wrap the canvas in the file envelope the Coze playground loads (default: the bare canvas the save API takes)",
    )
    .option(
      "--dsl-version <version>",
      "dify: the DSL version to write (default: the file's own, else the current one; 0.4.0 suits Dify 1.8–1.9)",
    )
    .action(async (file, opts) => {
      const workflow = await exportSource(file, opts);
      // Each writer (the `yaml` package for Dify) loads only for its format: validate and show share this module.
      if (opts.to === "dify") {
        const { exportDify } = await import("../../dsl/dify/index.js");
        writeOut(opts.out, exportDify(workflow, opts.dslVersion ? { version: opts.dslVersion } : {}));
      } else if (opts.to === "mermaid")
        writeOut(opts.out, (await import("../../dsl/mermaid/index.js")).toMermaid(workflow));
      else if (opts.to === "coze") {
        const { exportCozeDetailed, toCozeFlowFile } = await import("../../dsl/coze/index.js");
        const res = exportCozeDetailed(workflow);
        // Approximations (model ids, dataset ids, memory rounds...) are the user's to check.
        for (const note of res.notes) process.stderr.write(`note: ${note}\n`);
        writeOut(opts.out, JSON.stringify(opts.flow ? toCozeFlowFile(res.canvas, workflow.mode) : res.canvas, null, 2));
      } else throw new CliError("usage.format", `unknown export format "${opts.to}" (use dify, mermaid or coze)`);
    });

  program
    .command("show")
    .description("summarise a workflow: nodes, edges, inputs, outputs, burden")
    .argument("<file>")
    .option("--json", "print the summary as JSON")
    .action(async (file, opts) => {
      const { workflow } = await readWorkflow(file);
      const types = await nodeTypesFor(workflow);
      const { diagnostics, burden } = analyse(workflow, types);
      const start = workflow.nodes.find((n) => n.type === "start");
      const inputs = start ? describeNode(start, types).outputs.filter((o) => !o.name.startsWith("sys.")) : [];
      const outputs = workflow.nodes
        .filter((n) => n.type === "end" || n.type === "answer")
        .flatMap((n) => describeNode(n, types).outputs.map((o) => ({ node: n.id, ...o })));
      const byType = new Map<string, number>();
      for (const n of workflow.nodes) byType.set(n.type, (byType.get(n.type) ?? 0) + 1);
      const summary = {
        name: workflow.name,
        mode: workflow.mode,
        nodes: workflow.nodes.length,
        edges: workflow.edges.length,
        nodeTypes: Object.fromEntries(byType),
        inputs,
        outputs,
        errors: diagnostics.filter((d) => d.severity === "error").length,
        warnings: diagnostics.filter((d) => d.severity === "warning").length,
        burden: burden.workflow,
      };
      if (opts.json) return printJson(summary);
      const lines = [
        `${summary.name} (${summary.mode}): ${summary.nodes} nodes, ${summary.edges} edges`,
        `node types: ${[...byType].map(([t, c]) => `${t}×${c}`).join(", ")}`,
        `inputs: ${inputs.map((i) => `${i.name}:${i.type}`).join(", ") || "(none)"}`,
        `outputs: ${outputs.map((o) => `${o.name}:${o.type}`).join(", ") || "(none)"}`,
        `diagnostics: ${summary.errors} error(s), ${summary.warnings} warning(s)`,
        `burden: ${JSON.stringify(burden.workflow)}`,
      ];
      process.stdout.write(`${lines.join("\n")}\n`);
    });
}

/** The workflow `weft export` writes: a file's, or an app's current version with its stored env values. */
async function exportSource(file: string | undefined, o: { app?: string; db?: string; config?: string }) {
  if (o.app === undefined) {
    if (file === undefined) throw new CliError("usage.export_source", "name a workflow file or an app (--app APP_ID)");
    return (await readWorkflow(file)).workflow;
  }
  const { openStores } = await import("../../store/open.js");
  const { withStoredValues } = await import("../../secrets/app-env.js");
  const stores = await openStores(o.db ?? loadWeftConfig(o.config).db);
  try {
    const current = await stores.apps.current(o.app);
    if (!current) throw new CliError("app.not_found", `no app with id ${o.app} (see \`weft apps list\`)`, EXIT.invalid);
    return await withStoredValues(stores.env, o.app, current.workflow);
  } finally {
    await stores.close();
  }
}
