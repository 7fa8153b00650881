/**
 * `--fidelity upstream` end to end on real recorded answers (DeepSeek-V3.1's StoryPPT_1 and StoryPPT_3),
 * with the LLM nodes and the judge on the loopback replay server: what goes over the wire is upstream's
 * (R2 judge messages and params, R7 node completion params), a judge that answers HTTP 500 is retried
 * and its cases reported unknown and left out of the rate (R4), and Weft's fidelity keeps its own layout.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Command } from "@commander-js/extra-typings";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerChat2WorkflowCommands, resolveJudgeFrom } from "../../src/cli/commands/eval-chat2workflow.js";
import { runChat2Workflow } from "../../src/eval/chat2workflow.js";
import type { Fidelity } from "../../src/eval/fidelity.js";
import { loadAnswers, loadSuite } from "../../src/eval/pass.js";
import { loadUpstreamPrompt } from "../../src/eval/upstream/prompts.js";
import { type Chat2WorkflowReplay, JUDGE_MODEL, startChat2WorkflowReplay } from "../support/chat2workflow-replay.js";
import { reply } from "../support/replay-server.js";
import { corpusDir } from "./corpus.js";

const C2W = join(corpusDir(), "chat2workflow");
const KEEP = new Set(["StoryPPT_1", "StoryPPT_3"]);
const DOWN_JUDGE = "down-judge";

describe("upstream fidelity over the wire", () => {
  let rp: Chat2WorkflowReplay;
  let upstreamDir: string;
  beforeAll(async () => {
    rp = await startChat2WorkflowReplay({
      tools: false,
      rules: (s) =>
        s.when((r) => r.model === DOWN_JUDGE, reply.status(500, { message: "judge down" }), {
          times: Number.POSITIVE_INFINITY,
        }),
    });
    upstreamDir = mkdtempSync(join(tmpdir(), "weft-c2w-upstream-"));
    mkdirSync(join(upstreamDir, "prompts"));
    writeFileSync(join(upstreamDir, "prompts", "evaluation_resolve_system.txt"), "\nYou judge workflow runs.\n");
  });
  afterAll(async () => rp?.close());

  const run = (fidelity: Fidelity, judgeModel: string) => {
    rp.server.requests.length = 0;
    const records = loadAnswers(join(C2W, "model-outputs", "deepseek_v3d1.json")).records.filter((r) =>
      KEEP.has(`${r.task}_${r.round}`),
    );
    return runChat2Workflow({
      datasetDir: C2W,
      suite: loadSuite(C2W),
      records,
      model: "deepseek_v3d1",
      outDir: join(rp.dir, `out-${fidelity}-${judgeModel}`),
      services: rp.services,
      resolveJudge: resolveJudgeFrom(rp.configPath, judgeModel, fidelity),
      fidelity,
      ...(fidelity === "upstream" ? { upstreamPrompt: loadUpstreamPrompt(upstreamDir, "resolve") } : {}),
      judgeRetryDelayMs: 0,
    });
  };

  it("R2/R7: the judge gets upstream's system + user messages at temperature 0 / max_tokens 8192; LLM nodes run at 0.7 / 32768", async () => {
    const r = await run("upstream", JUDGE_MODEL);
    expect(r.workflows.written).toBe(2);
    const judged = rp.server.requests.filter((q) => q.model === JUDGE_MODEL);
    // StoryPPT_1's three cases output text only; StoryPPT_3 shows the judge its story (the pptx is checked).
    expect(judged).toHaveLength(6);
    for (const q of judged) {
      expect(q.body.messages.map((m: { role: string }) => m.role)).toEqual(["system", "user"]);
      expect(q.body.messages[0].content).toBe("You judge workflow runs.");
      expect(q.body.messages[1].content).toMatch(/^\n {4}<queries>\n {4}query1: /);
      expect(q.body.messages[1].content).toMatch(/\n {4}<\/output>\n {4}\n {4}<reference_answer>\n/);
      expect(q.body.temperature).toBe(0);
      expect(q.body.max_tokens).toBe(8192);
    }
    const story3 = judged.map((q) => q.body.messages[1].content as string).find((c) => c.includes("query3:"))!;
    expect(story3).toContain("    title: ");
    expect(story3).not.toContain("pptx:");
    const nodes = rp.server.requests.filter((q) => q.model === "qwen3-vl-plus");
    expect(nodes.length).toBeGreaterThanOrEqual(6);
    for (const q of nodes) {
      expect(q.body.temperature).toBe(0.7);
      expect(q.body.max_tokens).toBe(32768);
    }
    expect(r.resolve.fidelity).toBe("upstream");
    const json = JSON.parse(readFileSync(r.files.json, "utf8"));
    expect(json.judgePrompt).toMatchObject({ matchesUpstream: false });
    expect(json.pass.step14).toEqual({ recorded: 2, judge: 0, standIn: 0 });
  }, 120_000);

  it("R4: a judge answering HTTP 500 is retried 3 times, then the case is unknown and left out of the rate", async () => {
    const r = await run("upstream", DOWN_JUDGE);
    const unknown = r.resolve.results.filter((x) => x.stage === "judge_unknown");
    expect(unknown.length).toBeGreaterThan(0);
    expect(r.resolve.unknown).toBe(unknown.length);
    for (const u of unknown) {
      expect(u.pass).toBeNull();
      expect(u.reason).toMatch(/did not answer in 3 attempts/);
    }
    expect(rp.server.requests.filter((q) => q.model === DOWN_JUDGE)).toHaveLength(3 * unknown.length);
    const counted = r.resolve.cases - r.resolve.unknown;
    expect(r.resolve.failed + r.resolve.passed).toBe(counted);
    expect(r.resolve.lowerBound).toBe(counted ? r.resolve.passed / counted : 0);
    expect(r.report.byEndState.judge_unknown).toBe(unknown.length);
  }, 120_000);

  it("R4 under weft fidelity too: the outage is unknown, not a failed case (it used to end as an error, rate 0)", async () => {
    const r = await run("weft", DOWN_JUDGE);
    expect(r.resolve.unknown).toBeGreaterThan(0);
    expect(r.resolve.results.filter((x) => x.stage === "error" && /judge|500/.test(x.reason))).toEqual([]);
  }, 120_000);

  it("weft fidelity keeps one user message at temperature 0, and LLM nodes without completion params", async () => {
    const r = await run("weft", JUDGE_MODEL);
    const judged = rp.server.requests.filter((q) => q.model === JUDGE_MODEL);
    expect(judged.length).toBeGreaterThan(0);
    for (const q of judged) {
      expect(q.body.messages.map((m: { role: string }) => m.role)).toEqual(["user"]);
      expect(q.body.temperature).toBe(0);
      expect(q.body.max_tokens).toBeUndefined();
    }
    for (const q of rp.server.requests.filter((x) => x.model === "qwen3-vl-plus"))
      expect(q.body.temperature).toBeUndefined();
    expect(r.resolve.fidelity).toBe("weft");
  }, 120_000);

  it("the command defaults to upstream rules: without upstream's prompt it stops with a typed error, with --upstream-dir it runs", async () => {
    const dir = mkdtempSync(join(tmpdir(), "weft-c2w-cli-up-"));
    const all = JSON.parse(readFileSync(join(C2W, "model-outputs", "deepseek_v3d1.json"), "utf8")) as Array<{
      task: string;
      round: number;
    }>;
    const subset = join(dir, "subset.json");
    writeFileSync(subset, JSON.stringify(all.filter((a) => KEEP.has(`${a.task}_${Number(a.round)}`))));
    const args = ["chat2workflow", C2W, "--answers", subset, "--out", join(dir, "out"), "--config", rp.configPath];
    await expect(evalCli([...args, "--judge-model", JUDGE_MODEL])).rejects.toMatchObject({
      code: "eval.upstream_prompt_missing",
    });
    const out = await evalCli([...args, "--judge-model", JUDGE_MODEL, "--upstream-dir", upstreamDir]);
    expect(out).toMatch(
      /subset \(upstream rules\): pass stage 2\/2; resolve 6 passed, \d+ failed, 0 not judged, 0 unknown/,
    );
  }, 120_000);
});

/** Runs `eval <args>` in process, capturing stdout. */
async function evalCli(args: string[]): Promise<string> {
  const program = new Command().exitOverride();
  registerChat2WorkflowCommands(program.command("eval"));
  const chunks: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((c: string | Uint8Array) => {
    chunks.push(typeof c === "string" ? c : Buffer.from(c).toString());
    return true;
  }) as typeof process.stdout.write;
  try {
    await program.parseAsync(["eval", ...args], { from: "user" });
  } finally {
    process.stdout.write = write;
  }
  return chunks.join("");
}
