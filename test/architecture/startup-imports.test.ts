import { describe, expect, it } from "vitest";
import { staticPackages } from "../support/import-graph.js";

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
    expect([...loaded.keys()]).toEqual(expect.arrayContaining(["zod", "better-sqlite3"]));
  });

  it.each(LAZY)("%s is not imported statically by the run command", (pkg) => {
    expect(loaded.get(pkg), `reached through ${loaded.get(pkg)?.join(" > ")}`).toBeUndefined();
  });
});
