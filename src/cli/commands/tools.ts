import type { Command } from "@commander-js/extra-typings";
import { buildServices } from "../../runtime/services.js";
import { checkToolUses } from "../../tools/configured/check.js";
import { loadWeftConfig } from "../config.js";
import { readWorkflow } from "../io.js";
import { EXIT, printJson } from "../output.js";

function params(schema: Record<string, unknown>): string {
  const props = Object.entries((schema.properties ?? {}) as Record<string, { type?: unknown }>);
  const req = new Set(Array.isArray(schema.required) ? schema.required : []);
  return props.map(([k, v]) => `${k}${req.has(k) ? "" : "?"}: ${String(v?.type ?? "any")}`).join(", ");
}

export function registerToolsCommands(program: Command): void {
  const tools = program
    .command("tools")
    .description("tools served by weft.config.json (MCP, OpenAPI, workflow files) and the built-ins");
  tools
    .command("list")
    .description(
      "every tool the configuration provides (provider, name, parameters), the tools.map entries and the built-ins",
    )
    .option("--config <path>", "weft.config.json")
    .option("--json", "print as JSON")
    .action(async (opts) => {
      const cfg = loadWeftConfig(opts.config);
      const services = await buildServices(cfg, { configPath: opts.config });
      try {
        const configured = [];
        for (const p of services.tools.configuredProviders()) {
          try {
            configured.push({ provider: p.id, kind: p.kind, tools: await p.tools() });
          } catch (e) {
            configured.push({ provider: p.id, kind: p.kind, error: (e as Error).message, tools: [] });
          }
        }
        const builtin = (await services.tools.builtin()).list();
        if (opts.json) return printJson({ configured, map: cfg.tools.map, builtin });
        for (const p of configured) {
          process.stdout.write(`${p.kind} ${p.provider}${p.error ? `  ✗ ${p.error}` : ""}\n`);
          for (const t of p.tools)
            process.stdout.write(`  ${p.provider}/${t.name}(${params(t.parameters)})  ${t.description}\n`);
        }
        if (configured.length === 0)
          process.stdout.write("no tools configured (tools.mcp, tools.openapi, tools.workflow in weft.config.json)\n");
        for (const [from, to] of Object.entries(cfg.tools.map))
          process.stdout.write(`map ${from} → ${typeof to === "string" ? to : to.tool}\n`);
        process.stdout.write(`built-in: ${builtin.map((t) => t.name.replace("__", "/")).join(", ")}\n`);
      } finally {
        await services.close();
      }
    });
  tools
    .command("check")
    .description(
      "which tool nodes of a workflow are served (built-in or configured) and which are not, with the config that would serve them",
    )
    .argument("<workflow>")
    .option("--config <path>", "weft.config.json")
    .option("--json", "print as JSON")
    .action(async (file, opts) => {
      const cfg = loadWeftConfig(opts.config);
      const { workflow } = await readWorkflow(file);
      const services = await buildServices(cfg, { configPath: opts.config });
      try {
        const checks = await checkToolUses(workflow, services.tools);
        const bad = checks.filter((c) => c.status === "unserved" || c.status === "broken");
        process.exitCode = bad.length > 0 ? EXIT.invalid : EXIT.ok;
        if (opts.json) return printJson(checks);
        for (const c of checks) {
          const mark = c.status === "builtin" || c.status === "configured" ? "✓" : "✗";
          process.stdout.write(
            `${mark} ${c.nodeId} ${c.providerId}/${c.toolName}: ${c.status}${c.servedBy ? ` (${c.servedBy})` : ""}\n`,
          );
          if (c.message) process.stdout.write(`${c.message.replace(/^/gm, "    ")}\n`);
        }
        if (checks.length === 0) process.stdout.write("the workflow uses no tools\n");
      } finally {
        await services.close();
      }
    });
}
