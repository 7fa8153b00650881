import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Command } from "@commander-js/extra-typings";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { analyse } from "../../src/analysis/index.js";
import { registerMineCommands } from "../../src/cli/commands/mine.js";
import { WorkflowSchema } from "../../src/ir/workflow.js";
import { nodeCatalogue } from "../../src/nodes/index.js";
import { corpusPath } from "../support/corpus.js";
import { type ReplayServer, reply, startReplayServer } from "../support/replay-server.js";
import {
  EXECUTOR,
  executorReply,
  isExecutor,
  OPTIMISER,
  PEOPLE,
  phoneOf,
  phoneRecords,
  TOOL_SPECS,
} from "./fixtures.js";

let server: ReplayServer;
let dir: string;
beforeAll(async () => {
  server = await startReplayServer();
  dir = mkdtempSync(join(tmpdir(), "weft-mine-cli-"));
});
afterAll(async () => server.close());

async function weft(...args: string[]): Promise<string> {
  const program = new Command().exitOverride();
  registerMineCommands(program);
  let out = "";
  const spy = vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
    out += String(chunk);
    return true;
  });
  const err = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
  try {
    await program.parseAsync(["node", "weft", ...args]);
  } finally {
    spy.mockRestore();
    err.mockRestore();
  }
  return out;
}

describe("weft mine / weft optimize", () => {
  it("mines the ToolBench corpus into a valid workflow file", async () => {
    const out = join(dir, "toolbench.json");
    await weft("mine", corpusPath("toolbench/toolbench/answer"), "-o", out, "--model", "openai/gpt-4o-mini");
    const wf = WorkflowSchema.parse(JSON.parse(readFileSync(out, "utf8")));
    expect(analyse(wf, nodeCatalogue).diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    expect(wf.nodes.filter((n) => n.type === "tool-call").length).toBeGreaterThan(5);
  });

  it("rejects bad options with typed errors", async () => {
    await expect(weft("mine", corpusPath("toolbench/derived_call_chains.json"), "--noise", "3")).rejects.toMatchObject({
      code: "usage.number",
    });
    await expect(weft("mine", join(dir, "nope.json"))).rejects.toMatchObject({ code: "mine.records_unreadable" });
  });

  it("optimises a mined workflow with replayed tools, prints the table and writes the plot and log", async () => {
    const records = phoneRecords().map((r) => ({
      ...r,
      calls: [
        { ...r.calls[0]!, response: JSON.stringify({ id: `P-${r.calls[0]!.arguments.name}` }) },
        { ...r.calls[1]!, response: JSON.stringify({ phone: phoneOf(String(r.calls[1]!.arguments.id).slice(2)) }) },
      ],
    }));
    const recordsFile = join(dir, "records.json");
    writeFileSync(recordsFile, JSON.stringify(records));
    const oldLogs = join(dir, "old.json");
    writeFileSync(oldLogs, JSON.stringify(records.map((r) => ({ ...r, calls: r.calls.slice(0, 1) }))));
    const toolsFile = join(dir, "tools.json");
    writeFileSync(toolsFile, JSON.stringify(TOOL_SPECS.map((t) => ({ type: "function", function: t }))));
    const wfFile = join(dir, "mined.json");
    await weft("mine", oldLogs, "--tools", toolsFile, "-o", wfFile, "--model", `openai/${EXECUTOR}`);

    const config = join(dir, "weft.config.json");
    writeFileSync(
      config,
      JSON.stringify({
        llm: {
          endpoints: { ep: { provider: "openai-compatible", baseURL: server.openaiBaseURL } },
          default: "ep",
          retry: { maxRetries: 0 },
        },
      }),
    );
    server.when(isExecutor, executorReply, { times: Infinity });
    server.enqueue(
      reply.json({
        rationale: "get the phone",
        edits: [
          {
            kind: "add_node",
            node: { id: "phone", type: "tool-call", config: { candidates: ["get_phone"] } },
            after: "call1",
          },
        ],
      }),
      reply.json({
        rationale: "structure",
        edits: [{ kind: "refine_prompt", id: "synth", template: "synthesising/structured" }],
      }),
    );
    const best = join(dir, "best.json");
    const plot = join(dir, "plot.svg");
    const log = join(dir, "log.json");
    const out = await weft(
      "optimize",
      wfFile,
      "--records",
      recordsFile,
      "--tools",
      toolsFile,
      "--iterations",
      "2",
      "--es",
      "token-f1",
      "--optimizer-model",
      `openai/${OPTIMISER}`,
      "--config",
      config,
      "-o",
      best,
      "--plot",
      plot,
      "--log",
      log,
    );
    expect(server.unmatched).toEqual([]);
    expect(out).toMatch(/^iteration\s+candidate\s+edits\s+TC\s+ES\s+reward\s+validation/);
    expect(out).toContain("#1 ← #0 *");
    expect(out).toContain("add tool-call phone after call1");
    expect(out).toMatch(/best: #1 validation 1\.000, test reward 1\.000/);
    const bestWf = WorkflowSchema.parse(JSON.parse(readFileSync(best, "utf8")));
    expect(bestWf.nodes.some((n) => n.id === "phone")).toBe(true);
    const svg = readFileSync(plot, "utf8");
    expect(svg.startsWith("<svg")).toBe(true);
    expect(svg).toContain("Validation score by iteration");
    const l = JSON.parse(readFileSync(log, "utf8"));
    expect(l.best).toBe(1);
    expect(l.nodes).toHaveLength(3);
    expect(l.split.optimisation.length + l.split.validation.length + l.split.test.length).toBe(PEOPLE.length);
  });
});
