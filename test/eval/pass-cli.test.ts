/** `weft eval pass` end to end: a tiny suite on disk, the CLI in a child process, the judge on a local replay server. */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ReplayServer, reply, startReplayServer } from "../support/replay-server.js";
import { WEFT_BIN } from "../support/weft-bin.js";

const run = promisify(execFile);

const wf = JSON.stringify({
  nodes_info: [
    { id: "1", type: "start", param: { variables: [["query", "string"]] } },
    { id: "2", type: "llm", param: { system: "Answer.", user: "{{#'1'.query#}}" } },
    { id: "3", type: "end", param: { outputs: [["answer", ["text", "2"]]] } },
  ],
  edges: [
    ["1", 0, "2"],
    ["2", 0, "3"],
  ],
});

let dir: string;
let server: ReplayServer;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "weft-eval-pass-"));
  mkdirSync(join(dir, "suite/dataset"), { recursive: true });
  writeFileSync(
    join(dir, "suite/dataset/query.json"),
    JSON.stringify([
      { id: 1, category: "Research", task: "QA", query1: "answer (variable query) → answer", query2: "same, fenced" },
    ]),
  );
  const check = { input_var: ["query"], output_var: ["answer"], related_nodes: ["llm"] };
  writeFileSync(join(dir, "suite/dataset/check_pass_stage.json"), JSON.stringify({ QA_1: check, QA_2: check }));
  writeFileSync(
    join(dir, "answers.json"),
    JSON.stringify([
      {
        task: "QA",
        round: 1,
        node_selection: "Start, LLM, End",
        design_principle: "one LLM",
        workflow: wf,
        valid: true,
        has_been_judged: true,
      },
      {
        task: "QA",
        round: "2",
        node_selection: "Start, LLM",
        design_principle: "one LLM",
        workflow: wf,
        valid: false,
        fail_step: "step_1_4",
      },
    ]),
  );
  server = await startReplayServer();
});
afterAll(async () => {
  await server.close();
});

const cli = (args: string[], env: Record<string, string> = {}) =>
  run(WEFT_BIN, ["eval", "pass", join(dir, "suite"), "--answers", join(dir, "answers.json"), ...args], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? "", HOME: dir, ...env },
  });

describe("weft eval pass", () => {
  it("reports deterministic rates, repairs and the skipped judge, and writes a Markdown report", {
    timeout: 60_000,
  }, async () => {
    const { stdout } = await cli(["--repair", "--report", join(dir, "report.md")]);
    expect(stdout).toMatch(/pass \(paper's deterministic checks\)\s+1\/2 = 50\.00%\s+repaired: 2\/2 = 100\.00%/);
    expect(stdout).toContain("LLM-judged checks (step_1_4): skipped");
    expect(stdout).toContain("selection 1→1");
    const md = readFileSync(join(dir, "report.md"), "utf8");
    expect(md).toContain("| Research | 2 |");
    expect(md).toMatch(/\| QA_2 \| Research \| step_1_4 \| pass\.undeclared_type \|/); // failures with their codes
  });

  it("prints JSON, and uses the configured judge", { timeout: 60_000 }, async () => {
    server.when(
      () => true,
      reply.text("<reason>ok</reason><rule1>true</rule1><rule2>true</rule2><result>true</result>"),
      { times: Infinity },
    );
    const { stdout } = await cli(["--json"], { WEFT_LLM_BASE_URL: server.openaiBaseURL });
    const out = JSON.parse(stdout);
    expect(out.summary.judge).toBe("used");
    expect(out.summary.strict).toMatchObject({ total: 2, passed13: 2, deterministic: 1, judged: 2 });
    expect(out.items[1]).toMatchObject({
      key: "QA_2",
      failureKind: "selection",
      strict: { failStep: "step_1_4", codes: ["pass.undeclared_type"] },
    });
    expect(server.requests.length).toBe(2);
    expect(server.requests[0]!.body.temperature).toBe(0);
  });

  it("fails with a typed error on a missing suite", { timeout: 60_000 }, async () => {
    const err = await run(WEFT_BIN, ["eval", "pass", join(dir, "nope"), "--answers", join(dir, "answers.json")], {
      cwd: dir,
    }).catch((e) => e);
    expect(err.code).toBe(1);
    expect(err.stderr).toContain("error pass.suite_not_found");
  });
});
