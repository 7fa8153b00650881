import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { staticFiles, staticPackages } from "../support/import-graph.js";

// `weft run` of a workflow pays for every module its command loads (issue: start-up 17.5× a bare node).
// These load where they are used (a model call, a configured MCP/OpenAPI tool, an export, a worker's
// metrics), so a static import that pulls one back into the command is a regression this names.
const LAZY = [
  "ai",
  "@ai-sdk/openai",
  "@ai-sdk/anthropic",
  "@ai-sdk/google",
  "@ai-sdk/openai-compatible",
  "@modelcontextprotocol/sdk",
  "docx",
  "pptxgenjs",
  "marked",
  "undici",
  "ajv",
  "cron-parser",
  "pino",
  "pino-pretty",
  "prom-client",
  "hono",
  "@hono/node-server",
  "openid-client",
  // Dify YAML is read with js-yaml; the `yaml` package is the writer (export), mime-db is parsed on a first lookup.
  "yaml",
  "mime-types",
];

describe("weft run loads only what a run needs", () => {
  const loaded = staticPackages("src", "cli/commands/run.ts");

  it("finds the packages the command does load (the check can see imports)", () => {
    expect([...loaded.keys()]).toEqual(expect.arrayContaining(["zod", "js-yaml"]));
  });

  it.each(LAZY)("%s is not imported statically by the run command", (pkg) => {
    expect(loaded.get(pkg), `reached through ${loaded.get(pkg)?.join(" > ")}`).toBeUndefined();
  });
});

/** The files of src/nodes that define a node type (what the registry loads on demand). */
const nodeTypeFiles = () => {
  const dir = resolve(import.meta.dirname, "../../src/nodes");
  return readdirSync(dir)
    .filter((f) => f.endsWith(".ts") && /=\s*defineNode\b/.test(readFileSync(join(dir, f), "utf8")))
    .map((f) => `nodes/${f}`);
};

// Each of these loads when a run needs it: node types from src/nodes/registry.ts for the workflow's own types,
// one store backend for the --db given, one sandbox language on its first code node, workflow tools when configured,
// the built-in tools and the retrieval code when a node first uses them.
const ON_DEMAND = [
  "nodes/index.ts",
  "store/memory/open.ts",
  "store/sqlite/open.ts",
  "store/postgres/open.ts",
  "sandbox/javascript.ts",
  "sandbox/python.ts",
  "sandbox/egress.ts",
  "runtime/workflow-tool.ts",
  // The built-in tools load with the first tool call or check, knowledge retrieval with the first retrieval.
  "tools/builtin/service.ts",
  "knowledge/service.ts",
];

describe("weft run and weft validate load only the node types, store and sandbox a workflow needs", () => {
  const run = staticFiles("src", "cli/commands/run.ts");
  const validate = staticFiles("src", "cli/commands/static.ts");

  it("finds the files the commands do load (the check can see imports)", () => {
    expect([...run.keys()]).toEqual(expect.arrayContaining(["nodes/registry.ts", "engine/run.ts", "store/open.ts"]));
    expect(nodeTypeFiles().length).toBeGreaterThan(20);
  });

  it.each(ON_DEMAND)("%s is not imported statically by the run command", (file) => {
    expect(run.get(file), `reached through ${run.get(file)?.join(" > ")}`).toBeUndefined();
  });

  // The start node's file is the one exception: the CLI checks --input against its variables (engine/inputs.ts).
  it("no node type's file but the start node's is imported statically by the run or the validate command", () => {
    const reached = nodeTypeFiles()
      .filter((f) => f !== "nodes/start.ts")
      .flatMap((f) => [run.get(f), validate.get(f)].filter((c) => c !== undefined));
    expect(reached.map((c) => c.join(" > "))).toEqual([]);
  });
});
