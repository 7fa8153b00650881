import { existsSync } from "node:fs";
import type { Command } from "@commander-js/extra-typings";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { analyse, runGate } from "../../analysis/index.js";
import { StoredHumanInput } from "../../engine/human-input.js";
import { runWorkflow } from "../../engine/run.js";
import { formatDiagnostic } from "../../ir/diagnostics.js";
import type { Workflow } from "../../ir/workflow.js";
import { nodeCatalogue } from "../../nodes/index.js";
import { createAppMcpServer } from "../../publish/mcp.js";
import { buildServices } from "../../runtime/services.js";
import { AppEnv } from "../../secrets/app-env.js";
import { KeyProvider, keyFilePath } from "../../secrets/key.js";
import { openStores } from "../../store/open.js";
import { loadWeftConfig } from "../config.js";
import { readWorkflow } from "../io.js";
import { CliError, EXIT } from "../output.js";

export function registerMcpCommands(program: Command): void {
  const mcp = program.command("mcp").description("apps as MCP servers");
  mcp
    .command("serve")
    .description(
      "serve one app (a workflow file, or an app id of the database: its published version) as an MCP server over stdio: one tool, start inputs → end outputs",
    )
    .argument("<app-or-file>")
    .option("--db <spec>", "database for app ids, runs and knowledge bases (default from config: weft.db)")
    .option("--config <path>", "weft.config.json")
    .action(async (target, opts) => {
      const cfg = loadWeftConfig(opts.config);
      const stores = await openStores(opts.db ?? cfg.db);
      let workflow: Workflow;
      let appId: string | undefined;
      let name: string | undefined;
      if (existsSync(target)) workflow = (await readWorkflow(target)).workflow;
      else {
        const app = await stores.apps.getApp(target);
        if (!app) {
          await stores.close();
          throw new CliError(
            "mcp.app_not_found",
            `${target} is neither a workflow file nor an app id of ${opts.db ?? cfg.db}`,
            EXIT.invalid,
          );
        }
        const published = await stores.apps.published(app.id);
        if (!published) {
          await stores.close();
          throw new CliError(
            "app.not_published",
            `app ${app.id} has no published version yet; publish it first (\`weft apps publish ${app.id}\`)`,
            EXIT.invalid,
          );
        }
        workflow = published.workflow;
        appId = app.id;
        name = app.name;
      }
      const gate = runGate(analyse(workflow, nodeCatalogue).diagnostics);
      if (gate.blocking.length > 0) {
        await stores.close();
        for (const d of gate.blocking) process.stderr.write(`${formatDiagnostic(d)}\n`);
        throw new CliError(
          "run.invalid_workflow",
          "the workflow has errors; fix them (see `weft validate`) before serving it",
          EXIT.invalid,
        );
      }
      const services = await buildServices(cfg, { configPath: opts.config, knowledge: stores.knowledge });
      const appEnv = new AppEnv(
        stores.env,
        stores.apps,
        new KeyProvider(keyFilePath(opts.db ?? cfg.db, cfg.secretKeyFile)),
      );
      // Forms are stored in the database, so a run that pauses here is answered with `weft resume`.
      const humanInput = new StoredHumanInput(stores.forms);
      const db = opts.db ?? cfg.db;
      const server = createAppMcpServer(
        workflow,
        async (inputs, sys, signal) =>
          runWorkflow(workflow, {
            inputs,
            sys,
            services: { ...services, humanInput },
            store: stores.runs,
            appId,
            signal,
            ...(appId ? { env: await appEnv.forRun(appId) } : {}),
          }),
        {
          name,
          paused: {
            forms: async (runId) => (await stores.forms.runForms(runId)).filter((f) => f.status === "waiting"),
            howToAnswer: (runId, f) =>
              `weft resume ${runId} --db ${db} --form ${f.id} --action <action id> -i <input>=<value>`,
          },
        },
      );
      const stop = async () => {
        await server.close().catch(() => {});
        await services.close();
        await stores.close();
        process.exit(0);
      };
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
      // stdout carries the protocol; the log goes to stderr.
      await server.connect(new StdioServerTransport());
      process.stdin.once("end", stop);
      process.stderr.write(`weft mcp: serving "${name ?? workflow.name}" over stdio\n`);
    });
}
