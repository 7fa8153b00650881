#!/usr/bin/env node
/**
 * stdio MCP server for one SOP-Bench domain:
 *   tsx src/eval/sopbench/mcp-server.ts --domain referral_abuse_detection_v1 [--validation structural|strict|off]
 *     [--warehouse-mode csv|original] [--seed 42] [--now 2026-01-01T00:00:00Z] [--float-tolerance 0]
 *     [--shuffle-tools] [--corpus DIR]
 * Logs go to stderr only: stdout carries the protocol.
 */
import { parseArgs } from "node:util";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { domains } from "./dataset.js";
import { type EnvOptions, PINNED_NOW } from "./env.js";
import { SopBenchError } from "./errors.js";
import { createSopBenchMcpServer } from "./mcp.js";

function options(argv: string[]): { domain: string; env: EnvOptions } {
  const { values } = parseArgs({
    args: argv,
    options: {
      domain: { type: "string" },
      validation: { type: "string", default: "structural" },
      "warehouse-mode": { type: "string", default: "csv" },
      seed: { type: "string", default: "42" },
      now: { type: "string", default: PINNED_NOW },
      corpus: { type: "string" },
      "float-tolerance": { type: "string", default: "0" },
      "shuffle-tools": { type: "boolean", default: false },
    },
    strict: true,
  });
  const bad = (field: string, why: string) => new SopBenchError("sopbench.cli", `--${field}: ${why}`, { field });
  if (!values.domain) throw bad("domain", `is required (one of ${domains(values.corpus).join(", ")})`);
  if (!["strict", "structural", "off"].includes(values.validation))
    throw bad("validation", "must be strict, structural or off");
  if (!["csv", "original"].includes(values["warehouse-mode"])) throw bad("warehouse-mode", "must be csv or original");
  const seed = Number(values.seed);
  if (!Number.isInteger(seed)) throw bad("seed", "must be an integer");
  const floatTolerance = Number(values["float-tolerance"]);
  if (!(floatTolerance >= 0)) throw bad("float-tolerance", "must be a number ≥ 0");
  const now = new Date(values.now);
  if (Number.isNaN(now.getTime())) throw bad("now", "must be an ISO date-time");
  return {
    domain: values.domain,
    env: {
      validation: values.validation as EnvOptions["validation"],
      warehouseMode: values["warehouse-mode"] as EnvOptions["warehouseMode"],
      seed,
      floatTolerance,
      shuffleToolSpecs: values["shuffle-tools"],
      now: () => new Date(now),
      ...(values.corpus ? { corpusDir: values.corpus } : {}),
    },
  };
}

try {
  const { domain, env } = options(process.argv.slice(2));
  const { mcp } = createSopBenchMcpServer(domain, env);
  await mcp.connect(new StdioServerTransport());
  process.stderr.write(`sopbench MCP server ready: ${domain}\n`);
} catch (e) {
  const code = e instanceof SopBenchError ? e.code : "sopbench.cli";
  process.stderr.write(`${code}: ${(e as Error).message}\n`);
  process.exit(2);
}
