import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { Command } from "@commander-js/extra-typings";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { registerEvalRunners } from "../../src/cli/commands/eval-runners.js";
import { evaluateWorf } from "../../src/eval/metrics/worfeval.js";
import { loadChat2WorkflowSuite } from "../../src/eval/resolve-suite.js";
import { corpusPath } from "../support/corpus.js";
import { type ReplayServer, reply, startReplayServer } from "../support/replay-server.js";
import { WEFT_BIN } from "../support/weft-bin.js";

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, "../..");

/** Runs `eval <args>` in process, capturing what the command writes to stdout. */
async function evalCli(args: string[]): Promise<{ stdout: string; exitCode: number | undefined }> {
  const program = new Command().exitOverride();
  registerEvalRunners(program.command("eval"));
  const chunks: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  const before = process.exitCode;
  process.exitCode = undefined;
  process.stdout.write = ((c: string | Uint8Array) => {
    chunks.push(typeof c === "string" ? c : Buffer.from(c).toString());
    return true;
  }) as typeof process.stdout.write;
  try {
    await program.parseAsync(["eval", ...args], { from: "user" });
  } finally {
    process.stdout.write = write;
  }
  const exitCode = process.exitCode as number | undefined;
  process.exitCode = before;
  return { stdout: chunks.join(""), exitCode };
}

/** Runs the command in a child process (bin/weft), as a user would. */
async function evalProcess(args: string[], env: Record<string, string> = {}) {
  try {
    const r = await run(WEFT_BIN, ["eval", ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
    });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const x = e as { code: number; stdout: string; stderr: string };
    return { code: x.code, stdout: x.stdout, stderr: x.stderr };
  }
}

let server: ReplayServer;
beforeAll(async () => {
  server = await startReplayServer();
});
afterAll(async () => server.close());
beforeEach(() => server.reset());

describe("eval sop", () => {
  it("--json prints {domain, tasks, n (runs), strict, lenient, passAtK} and --out writes the report", async () => {
    const out = mkdtempSync(join(tmpdir(), "weft-eval-sop-"));
    const { stdout } = await evalCli(["sop", "--domain", "order_fulfillment", "--runs", "2", "--json", "--out", out]);
    const j = JSON.parse(stdout);
    expect(Object.keys(j).sort()).toEqual(["domain", "lenient", "n", "passAtK", "strict", "tasks"]);
    expect(j.domain).toBe("order_fulfillment");
    expect(j.n).toBe(2);
    expect(j.tasks).toBe(30);
    expect(j.strict).toBeCloseTo(26 / 30, 12);
    expect(j.passAtK).toEqual([
      { k: 1, strict: expect.closeTo(26 / 30, 12), lenient: expect.closeTo(26 / 30, 12) },
      { k: 2, strict: expect.closeTo(26 / 30, 12), lenient: expect.closeTo(26 / 30, 12) },
    ]);
    expect(readFileSync(join(out, "order_fulfillment.md"), "utf8")).toContain("| strict | 86.7% |");
    expect(readFileSync(join(out, "order_fulfillment.passk.svg"), "utf8")).toContain("<svg");
    expect(JSON.parse(readFileSync(join(out, "order_fulfillment.results.json"), "utf8")).perRun).toHaveLength(2);
  });

  it("prints strict/lenient and pass^k as text; --workflow scores a given file", async () => {
    const wf = join(ROOT, "src/eval/sopbench/workflows/referral_abuse_detection_v1.json");
    const { stdout } = await evalCli([
      "sop",
      "--domain",
      "referral_abuse_detection_v1",
      "--workflow",
      wf,
      "--limit",
      "20",
    ]);
    expect(stdout).toContain("referral_abuse_detection_v1: 20 tasks × 1 run");
    expect(stdout).toContain("strict  100.0% (20/20)");
    expect(stdout).toContain("lenient 100.0% (20/20)");
    expect(stdout).toMatch(/pass\^k {2}k=1 100\.0%\/100\.0%/);
  });

  it("--validation strict is passed to the tool environment (the documented KYB schema conflict shows up)", async () => {
    const { stdout } = await evalCli([
      "sop",
      "--domain",
      "know_your_business",
      "--validation",
      "strict",
      "--limit",
      "10",
    ]);
    expect(stdout).toMatch(
      /run errors: \d+ row\(s\); first: \S+: sopbench.invalid_args: .*bank_account_number must NOT have fewer than 8 characters/,
    );
    await expect(evalCli(["sop", "--domain", "know_your_business", "--validation", "loose"])).rejects.toMatchObject({
      code: "usage.validation",
    });
  });

  it.runIf(existsSync("/usr/bin/script"))(
    "draws a progress bar on a terminal only",
    async () => {
      const cmd = `${WEFT_BIN} eval sop --domain order_fulfillment --limit 12`;
      const tty = await run("/usr/bin/script", ["-qec", cmd, "/dev/null"], { cwd: ROOT });
      expect(tty.stdout).toContain("sop order_fulfillment [");
      expect(tty.stdout).toContain("12/12 100%");
      const piped = await evalProcess(["sop", "--domain", "order_fulfillment", "--limit", "12"]);
      expect(piped.code).toBe(0);
      expect(piped.stderr).toBe("");
      expect(piped.stdout).toMatch(/strict {2}\d+\.\d% \(\d+\/12\)/);
      expect(piped.stdout).not.toContain("[");
    },
    120_000,
  );

  it("an unknown domain or a broken workflow is a clean error with an exit code (real process)", async () => {
    const bad = await evalProcess(["sop", "--domain", "nope"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(
      /^error usage\.unknown_domain: unknown SOP-Bench domain "nope"; one of: customer_service/,
    );
    expect(bad.stderr).not.toMatch(/\n\s+at /);

    const dir = mkdtempSync(join(tmpdir(), "weft-eval-bad-"));
    const wf = JSON.parse(readFileSync(join(ROOT, "src/eval/sopbench/workflows/order_fulfillment.json"), "utf8"));
    wf.nodes.find((n: { id: string }) => n.id === "end").config.outputs[0].value_selector = ["ghost", "x"];
    writeFileSync(join(dir, "bad.json"), JSON.stringify(wf));
    const broken = await evalProcess(["sop", "--domain", "order_fulfillment", "--workflow", join(dir, "bad.json")]);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain("ghost");
    expect(broken.stderr).toContain("error eval.invalid_workflow");
  }, 120_000);
});

describe("eval worf", () => {
  const dir = mkdtempSync(join(tmpdir(), "weft-eval-worf-"));
  const goldText =
    "Node:\n1: search for flights\n2: book the cheapest flight\n3: send the confirmation\nEdge: (START,1) (1,2) (2,3) (3,END)";
  const predGraph = {
    nodes: ["START", "search flights", "send confirmation email", "book cheapest flight", "END"],
    edges: [
      [0, 1],
      [1, 3],
      [3, 2],
      [2, 4],
    ],
  };
  writeFileSync(join(dir, "gold.txt"), goldText);
  writeFileSync(join(dir, "pred.json"), JSON.stringify(predGraph));
  writeFileSync(
    join(dir, "record.json"),
    JSON.stringify({ conversations: [{ content: "sys" }, { content: goldText }] }),
  );

  it("scores {nodes, edges} JSON against WorfBench text and prints the similarity used", async () => {
    const expected = await evaluateWorf(predGraph as never, goldText);
    const { stdout } = await evalCli(["worf", join(dir, "pred.json"), join(dir, "gold.txt"), "--json"]);
    const j = JSON.parse(stdout);
    expect(j.f1_chain).toBe(expected.chain.f1);
    expect(j.f1_graph).toBe(expected.graph.f1);
    expect(j.similarity).toBe("token_char3_cosine_v1");
    expect(j.mode).toBe("paper");
    expect(j.f1_chain).toBeGreaterThan(0);
    const upstream = await evalCli([
      "worf",
      join(dir, "pred.json"),
      join(dir, "gold.txt"),
      "--json",
      "--mode",
      "upstream",
    ]);
    const u = JSON.parse(upstream.stdout);
    const expectedUp = await evaluateWorf(predGraph as never, goldText, { mode: "upstream" });
    expect([u.mode, u.f1_chain, u.f1_graph]).toEqual(["upstream", expectedUp.chain.f1, expectedUp.graph.f1]);
    const text = await evalCli(["worf", join(dir, "gold.txt"), join(dir, "record.json"), "--similarity", "bow"]);
    expect(text.stdout).toContain("f1_chain 1.0000");
    expect(text.stdout).toContain("f1_graph 1.0000");
    expect(text.stdout).toContain("similarity bow_cosine_v1");
  });

  it("rejects an unknown similarity", async () => {
    await expect(
      evalCli(["worf", join(dir, "pred.json"), join(dir, "gold.txt"), "--similarity", "magic"]),
    ).rejects.toMatchObject({
      code: "usage.worf_similarity",
    });
  });
});

describe("eval resolve", () => {
  const dir = mkdtempSync(join(tmpdir(), "weft-eval-resolve-"));
  mkdirSync(join(dir, "wf"));
  const wf = (name: string, nodes: unknown[], edges: Array<[string, string]>) =>
    writeFileSync(
      join(dir, "wf", `${name}.json`),
      JSON.stringify({
        weft: 1,
        name,
        mode: "workflow",
        nodes,
        edges: edges.map(([source, target]) => ({ source, target })),
      }),
    );
  const start = { id: "start", type: "start", config: { variables: [{ variable: "topic", type: "text-input" }] } };
  const tpl = {
    id: "t",
    type: "template-transform",
    config: {
      template: "All about {{ topic }}",
      variables: [{ variable: "topic", value_selector: ["start", "topic"] }],
    },
  };
  wf(
    "text",
    [
      start,
      tpl,
      { id: "end", type: "end", config: { outputs: [{ variable: "answer", value_selector: ["t", "output"] }] } },
    ],
    [
      ["start", "t"],
      ["t", "end"],
    ],
  );
  wf(
    "md",
    [
      start,
      tpl,
      {
        id: "export",
        type: "tool",
        config: {
          provider_id: "md_exporter",
          provider_type: "builtin",
          tool_name: "md_to_md",
          tool_parameters: { md_text: { type: "mixed", value: "# {{#t.output#}}" } },
        },
      },
      { id: "end", type: "end", config: { outputs: [{ variable: "md", value_selector: ["export", "files"] }] } },
    ],
    [
      ["start", "t"],
      ["t", "export"],
      ["export", "end"],
    ],
  );
  wf(
    "throws",
    [
      start,
      {
        id: "c",
        type: "code",
        config: {
          code_language: "javascript",
          code: 'function main() { throw new Error("boom"); }',
          outputs: { x: { type: "string" } },
        },
      },
      { id: "end", type: "end", config: { outputs: [{ variable: "x", value_selector: ["c", "x"] }] } },
    ],
    [
      ["start", "c"],
      ["c", "end"],
    ],
  );
  wf("empty", [start, { id: "end", type: "end", config: { outputs: [] } }], [["start", "end"]]);
  const suite = {
    name: "mini",
    instructions: [
      {
        task: "Explain",
        round: 1,
        queries: ["Explain the topic (variable topic) as text (variable answer)."],
        workflow: "wf/text.json",
        cases: [{ name: "t1", inputs: { topic: "tides" }, reference: "mentions tides" }],
      },
      {
        task: "Explain",
        round: 2,
        queries: ["Explain the topic.", "Export it as a .md file (variable md)."],
        workflow: "wf/md.json",
        required_files: { md: ".md" },
        cases: [{ inputs: { topic: "tides" } }],
      },
      {
        task: "Broken",
        round: 1,
        queries: ["Do it."],
        workflow: "wf/throws.json",
        cases: [{ inputs: { topic: "x" } }],
      },
      { task: "Empty", round: 1, queries: ["Do it."], workflow: "wf/empty.json", cases: [{ inputs: { topic: "x" } }] },
      {
        task: "WrongType",
        round: 1,
        queries: ["Give me a .md file (variable answer)."],
        workflow: "wf/text.json",
        required_files: { answer: ".md" },
        cases: [{ inputs: { topic: "x" } }],
      },
    ],
  };
  writeFileSync(join(dir, "suite.json"), JSON.stringify(suite));

  it("without a judge: deterministic checks decide, the text case is reported as judge skipped", async () => {
    const { stdout, exitCode } = await evalCli(["resolve", join(dir, "suite.json"), "--json"]);
    const j = JSON.parse(stdout);
    expect(j.judge).toBe(false);
    expect(j.results.map((r: { stage: string; pass: boolean | null }) => [r.stage, r.pass])).toEqual([
      ["judge_skipped", null],
      ["files_only", true],
      ["error", false],
      ["empty_outputs", false],
      ["file_check", false],
    ]);
    expect(j.results[2].reason).toContain("boom");
    expect(j.results[4].reason).toContain("answer: not_a_file");
    expect({ passed: j.passed, failed: j.failed, skipped: j.skipped, resolveRate: j.resolveRate }).toEqual({
      passed: 1,
      failed: 3,
      skipped: 1,
      resolveRate: null,
    });
    expect(j.lowerBound).toBeCloseTo(1 / 5, 12);
    expect(j.upperBound).toBeCloseTo(2 / 5, 12);
    expect(exitCode).toBeUndefined();
    const text = await evalCli(["resolve", join(dir, "suite.json")]);
    expect(text.stdout).toContain("judge skipped: 1 case(s) with text outputs were not judged");
    expect(text.stdout).toContain("resolve rate between 20.0% and 40.0%");
  });

  it("with --judge-model: the resolve-judge prompt goes to the model and its verdict decides", async () => {
    server.enqueue(reply.text("<reason>It explains tides.</reason><result>true</result>"));
    const cfg = join(dir, "weft.config.json");
    writeFileSync(
      cfg,
      JSON.stringify({
        llm: {
          endpoints: { judge: { provider: "openai-compatible", baseURL: server.openaiBaseURL } },
          default: "judge",
          retry: { maxRetries: 0 },
        },
      }),
    );
    const { stdout } = await evalCli([
      "resolve",
      join(dir, "suite.json"),
      "--json",
      "--judge-model",
      "judge-1",
      "--config",
      cfg,
    ]);
    const j = JSON.parse(stdout);
    expect(j.judge).toBe(true);
    expect(j.results[0]).toMatchObject({ stage: "judge", pass: true, reason: "It explains tides." });
    expect(j.resolveRate).toBeCloseTo(2 / 5, 12);
    const req = server.requests.find((r) => r.api === "openai-chat")!;
    expect(req.model).toBe("judge-1");
    const prompt = JSON.stringify(req.body.messages);
    expect(prompt).toContain("Round 1: Explain the topic (variable topic) as text (variable answer).");
    expect(prompt).toContain("answer: All about tides");
    expect(prompt).toContain("mentions tides");
    // Only the text case needed the judge.
    expect(server.requests.filter((r) => r.api === "openai-chat")).toHaveLength(1);
  });

  it("a malformed suite is a typed error naming the field", async () => {
    writeFileSync(
      join(dir, "bad-suite.json"),
      JSON.stringify({ instructions: [{ task: "X", queries: [], workflow: "a", cases: [] }] }),
    );
    await expect(evalCli(["resolve", join(dir, "bad-suite.json")])).rejects.toMatchObject({
      code: "resolve.suite_invalid",
    });
  });
});

describe("eval resolve over the Chat2Workflow dataset", () => {
  const C2W = corpusPath("chat2workflow");
  const wfDir = mkdtempSync(join(tmpdir(), "weft-c2w-"));
  writeFileSync(
    join(wfDir, "BookCharacter_1.json"),
    JSON.stringify({
      weft: 1,
      name: "book",
      mode: "workflow",
      nodes: [
        {
          id: "start",
          type: "start",
          config: {
            variables: [
              { variable: "book", type: "text-input" },
              { variable: "author", type: "text-input" },
            ],
          },
        },
        {
          id: "t",
          type: "template-transform",
          config: {
            template: "{{ book }} by {{ author }}",
            variables: [
              { variable: "book", value_selector: ["start", "book"] },
              { variable: "author", value_selector: ["start", "author"] },
            ],
          },
        },
        { id: "end", type: "end", config: { outputs: [{ variable: "result", value_selector: ["t", "output"] }] } },
      ],
      edges: [
        { source: "start", target: "t" },
        { source: "t", target: "end" },
      ],
    }),
  );

  it("reads rounds, test cases, references and required files from the dataset", () => {
    const suite = loadChat2WorkflowSuite(C2W, { workflowsDir: wfDir });
    expect(suite.instructions).toHaveLength(79);
    expect(suite.instructions.reduce((n, i) => n + i.cases.length, 0)).toBe(237);
    const paperQa3 = suite.instructions.find((i) => i.task === "PaperQA" && i.round === 3)!;
    expect(paperQa3.queries).toHaveLength(3);
    const t3 = paperQa3.cases.find((c) => c.name === "test3")!;
    expect(t3.reference).toMatch(/^Question1:/);
    expect("ground_truth" in t3.inputs).toBe(false);
    expect(suite.instructions.find((i) => i.task === "PaperDeepReader" && i.round === 4)!.required_files).toEqual({
      md: ".md",
    });
    expect(suite.instructions.find((i) => i.task === "BookCharacter" && i.round === 1)!.workflow).toBe(
      join(wfDir, "BookCharacter_1.json"),
    );
    expect(suite.filesDir).toBe(join(C2W, "case_files"));
  });

  it("runs the instructions that have a workflow; the rest fail, keeping the 237 denominator", async () => {
    const { stdout } = await evalCli(["resolve", C2W, "--workflows", wfDir, "--json"]);
    const j = JSON.parse(stdout);
    expect(j.cases).toBe(237);
    const book = j.results.filter((r: { task: string; round: number }) => r.task === "BookCharacter" && r.round === 1);
    expect(book.map((r: { stage: string }) => r.stage)).toEqual(["judge_skipped", "judge_skipped", "judge_skipped"]);
    expect({ passed: j.passed, failed: j.failed, skipped: j.skipped }).toEqual({ passed: 0, failed: 234, skipped: 3 });
    expect(j.results.find((r: { task: string }) => r.task === "PaperQA").reason).toBe("no workflow for PaperQA_1");
  });

  it("a dataset folder without --workflows is a usage error", async () => {
    await expect(evalCli(["resolve", C2W])).rejects.toMatchObject({ code: "usage.resolve_workflows" });
  });
});
