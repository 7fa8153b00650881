import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Command } from "@commander-js/extra-typings";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { registerCompileCommands } from "../../src/cli/commands/compile.js";
import { CliError, EXIT } from "../../src/cli/output.js";
import { WorkflowSchema } from "../../src/ir/workflow.js";
import { corpusPath } from "../support/corpus.js";
import { type ReplayServer, reply, startReplayServer } from "../support/replay-server.js";
import { dangerousGoodsLogic, dangerousGoodsModel } from "./fixtures.js";
import { ScriptedModel } from "./scripted.js";

let server: ReplayServer;
let dir: string;
beforeAll(async () => {
  server = await startReplayServer();
  dir = mkdtempSync(join(tmpdir(), "weft-compile-"));
});
afterAll(async () => {
  await server.close();
});

async function runCli(args: string[]): Promise<{ stderr: string; exitCode: number | undefined }> {
  const program = new Command().exitOverride();
  registerCompileCommands(program);
  const chunks: string[] = [];
  const spy = vi.spyOn(process.stderr, "write").mockImplementation((c: string | Uint8Array) => {
    chunks.push(String(c));
    return true;
  });
  const before = process.exitCode;
  try {
    await program.parseAsync(["node", "weft", "compile", ...args]);
    return { stderr: chunks.join(""), exitCode: process.exitCode as number | undefined };
  } finally {
    spy.mockRestore();
    process.exitCode = before;
  }
}

describe("weft compile", () => {
  it("compiles an SOP with tool specs, writes the workflow and prints burden, obligations, scenarios, disagreements", async () => {
    const sop = join(dir, "sop.txt");
    writeFileSync(sop, readFileSync(corpusPath("sopbench/dangerous_goods/sop.txt"), "utf8"));
    const tools = join(dir, "tools.json");
    writeFileSync(tools, readFileSync(corpusPath("sopbench/dangerous_goods/toolspecs.json"), "utf8"));
    const cfg = join(dir, "weft.config.json");
    writeFileSync(
      cfg,
      JSON.stringify({
        llm: {
          endpoints: { ep: { provider: "openai-compatible", baseURL: server.openaiBaseURL, apiKey: "k" } },
          default: "ep",
          retry: { maxRetries: 0 },
        },
      }),
    );
    const m = new ScriptedModel(server);
    m.push("source", reply.json(dangerousGoodsLogic)).push("draft", reply.json(dangerousGoodsModel()));
    const out = join(dir, "wf.json");
    const r = await runCli([
      sop,
      "--tools",
      tools,
      "-o",
      out,
      "--provider",
      "sopbench/dangerous_goods",
      "--config",
      cfg,
      "--report",
      "--model",
      "m1",
    ]);
    expect(r.exitCode).toBe(EXIT.ok);
    expect(r.stderr).toMatch(/burden before: 7 steps, \d+ nodes, max burden/);
    expect(r.stderr).toMatch(/burden after : 7 steps/);
    expect(r.stderr).toContain("obligations checked: 6 (0 failed)");
    expect(r.stderr).toContain("scenarios run: 2 over 1 dry-run round(s)");
    expect(r.stderr).toContain("disagreements found: 0, fixed: 0, remaining: 0");
    const wf = WorkflowSchema.parse(JSON.parse(readFileSync(out, "utf8")));
    expect(wf.nodes.filter((n) => n.type === "tool")).toHaveLength(4);
    const rep = JSON.parse(readFileSync(join(dir, "wf.report.json"), "utf8"));
    expect(rep.model.flow).toEqual(["check_id", "valid_id"]);
    expect(rep.report.passed).toBe(true);
    // --model names the model of the compile-time calls.
    expect(m.of("draft")[0]!.model).toBe("m1");
  });

  it("without a configured model: the configuration help and exit code 2", async () => {
    const sop = join(dir, "sop2.txt");
    writeFileSync(sop, "Do the thing.");
    const tools = join(dir, "tools2.json");
    writeFileSync(tools, "[]");
    const cfg = join(dir, "empty.config.json");
    writeFileSync(cfg, JSON.stringify({ llm: {} }));
    // Environment endpoints would count as a configured model; this test is about having none.
    const saved = Object.entries(process.env).filter(([k]) => k.startsWith("WEFT_LLM"));
    for (const [k] of saved) delete process.env[k];
    const err = await runCli([sop, "--tools", tools, "--config", cfg])
      .catch((e: unknown) => e)
      .finally(() => {
        for (const [k, v] of saved) process.env[k] = v;
      });
    expect(err).toBeInstanceOf(CliError);
    expect((err as CliError).exitCode).toBe(2);
    expect((err as CliError).message).toContain("How to configure a language model for Weft");
  });

  it("a missing SOP file is a usage error naming the file", async () => {
    const err = await runCli([join(dir, "nope.txt"), "--tools", join(dir, "tools2.json")]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CliError);
    expect((err as CliError).code).toBe("file.not_found");
  });
});
