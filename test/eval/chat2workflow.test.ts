/**
 * Chat2Workflow end to end on the benchmark's own cases: a real model's 79 recorded answers → the pass
 * stage → workflow files → every one of the 237 test cases run on the engine with the replay model (LLM
 * nodes over HTTP to a loopback server; image inputs sent as vision parts), a replay judge and the tools no
 * offline build serves (TTS, text-to-image, Google search) plugged in through the tool service's hook.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Command } from "@commander-js/extra-typings";
import JSZip from "jszip";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerChat2WorkflowCommands, resolveJudgeFrom } from "../../src/cli/commands/eval-chat2workflow.js";
import { type Chat2WorkflowResult, runChat2Workflow } from "../../src/eval/chat2workflow.js";
import { isFileValue } from "../../src/eval/metrics/resolve.js";
import { loadAnswers, loadSuite } from "../../src/eval/pass.js";
import type { FileValue } from "../../src/ir/services.js";
import {
  type Chat2WorkflowReplay,
  imageParts,
  JUDGE_MODEL,
  startChat2WorkflowReplay,
} from "../support/chat2workflow-replay.js";
import { corpusDir } from "./corpus.js";

const C2W = join(corpusDir(), "chat2workflow");
const MODEL = "deepseek_v3d1";
const answersFile = join(C2W, "model-outputs", `${MODEL}.json`);

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

/** What the file's bytes are, read independently of its name. */
async function sniff(bytes: Uint8Array): Promise<string> {
  const head = Buffer.from(bytes.slice(0, 16));
  if (head.subarray(0, 5).toString() === "%PDF-") return ".pdf";
  if (head.subarray(0, 8).equals(Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]))) return ".png";
  if (head.subarray(0, 4).toString() === "RIFF" && head.subarray(8, 12).toString() === "WAVE") return ".wav";
  if (head.subarray(0, 2).toString() === "PK") {
    const zip = await JSZip.loadAsync(bytes);
    if (zip.file("word/document.xml")) return ".docx";
    if (zip.file("ppt/presentation.xml")) return ".pptx";
    return "zip";
  }
  const text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  return /<html[\s>]/i.test(text) ? ".html" : ".md";
}

describe("eval workflows: answers → workflow files", () => {
  it("writes <Task>_<round>.yml for the survivors and a manifest; stale files of other answers go", async () => {
    const out = mkdtempSync(join(tmpdir(), "weft-c2w-wf-"));
    writeFileSync(join(out, "Code_3.yml"), "stale");
    const stdout = await evalCli(["workflows", C2W, "--answers", answersFile, "-o", out, "--fidelity", "weft"]);
    expect(stdout).toMatch(
      /^deepseek_v3d1: 54 of 79 answers pass the pass stage \(step_1_4 by the deterministic stand-in\)/,
    );
    const manifest = JSON.parse(readFileSync(join(out, "manifest.json"), "utf8"));
    const files = readdirSync(out).filter((f) => f.endsWith(".yml"));
    expect(files).toHaveLength(54);
    expect(manifest.entries).toHaveLength(79);
    for (const e of manifest.entries) {
      expect(existsSync(join(out, `${e.key}.yml`))).toBe(e.survived);
      if (!e.survived) expect(e.failStep).toMatch(/^step_1_[1-4]$/);
    }
    expect(readFileSync(join(out, "PaperQA_1.yml"), "utf8")).toMatch(/^app:/m);
    // The default is upstream's rules: step_1_4 is each record's recorded judgement, so the survivors are upstream's 46.
    const up = await evalCli(["workflows", C2W, "--answers", answersFile, "-o", out]);
    expect(up).toMatch(
      /^deepseek_v3d1: 46 of 79 answers pass the pass stage \(upstream rules; step_1_4 by the recorded judge 57, a live judge 0, the deterministic stand-in 0\)/,
    );
  }, 120_000);
});

describe("eval chat2workflow: pass + resolve over one model's 79 × 3 cases (replay model, judge, tools)", () => {
  let rp: Chat2WorkflowReplay;
  let r: Chat2WorkflowResult;
  beforeAll(async () => {
    rp = await startChat2WorkflowReplay();
    const { records } = loadAnswers(answersFile);
    r = await runChat2Workflow({
      datasetDir: C2W,
      suite: loadSuite(C2W),
      records,
      model: MODEL,
      outDir: join(rp.dir, "out"),
      services: rp.services,
      resolveJudge: resolveJudgeFrom(rp.configPath, JUDGE_MODEL),
      fidelity: "weft",
      concurrency: 4,
      caseTimeoutMs: 240_000,
    });
  }, 900_000);
  afterAll(async () => rp?.close());

  it("gives every one of the 237 cases an end state, with no unexpected crash", () => {
    expect(r.report.cases).toHaveLength(237);
    expect(r.report.lines).toHaveLength(237);
    const ends = new Set(r.report.cases.map((c) => c.end));
    for (const e of ends)
      expect([
        "pass_stage",
        "error",
        "empty_outputs",
        "file_check",
        "files_only",
        "judge_pass",
        "judge_fail",
      ]).toContain(e);
    // 25 instructions fail the pass stage: 75 cases count 0 without running.
    expect(r.report.cases.filter((c) => c.end === "pass_stage")).toHaveLength(75);
    // Every error is typed; none is an untyped exception of ours.
    for (const c of r.report.cases.filter((x) => x.end === "error")) {
      expect(c.kind).toMatch(/^[a-z_]+\.[a-z_]+$/);
      expect(c.kind).not.toBe("resolve.case_failed");
    }
    // The upstream-missing MEM1 PDF ends its four cases with a typed error naming the file.
    const mem1 = r.resolve.results.filter((x) => x.errorCode === "resolve.input_file_missing");
    expect(mem1.every((x) => x.task === "PaperDeepReader" && x.case === "test2" && /MEM1/.test(x.reason))).toBe(true);
    expect(Object.values(r.report.byEndState).reduce((a, b) => a + b, 0)).toBe(237);
    expect(r.resolve.cases).toBe(237);
    expect(rp.server.unmatched).toEqual([]);
    const md = readFileSync(r.files.markdown, "utf8");
    expect(md).toContain("## Every case");
    expect(md.split("\n").filter((l) => /^\| [A-Za-z]+_\d \| test\d \|/.test(l))).toHaveLength(237);
  });

  it("checks file extensions right on every required output type, and the bytes are what the name says", async () => {
    const byExt = new Map(r.report.fileChecks.map((f) => [f.extension, f]));
    for (const ext of [".pdf", ".png", ".docx", ".md", ".wav", ".pptx", ".html"]) {
      const f = byExt.get(ext)!;
      expect(f, ext).toBeDefined();
      expect(f.checked, ext).toBeGreaterThan(0);
      expect(f.right, ext).toBeGreaterThan(0);
      expect(f.right + f.wrongExtension + f.missingOrNotFile, ext).toBe(f.checked);
    }
    const required = JSON.parse(readFileSync(join(C2W, "dataset", "check_resolve_stage.json"), "utf8"));
    let sniffed = 0;
    for (const res of r.resolve.results) {
      const req: Record<string, string> | undefined = required[`${res.task}_${res.round}`];
      if (!req || !res.outputs) continue;
      for (const [name, ext] of Object.entries(req)) {
        const v = res.outputs[name];
        for (const f of (Array.isArray(v) ? v : [v]).filter(isFileValue) as FileValue[]) {
          const kind = await sniff(await rp.services.files!.get(f));
          // The check reads the extension only (as upstream); the content agrees with it.
          expect(kind, `${res.task}_${res.round} ${res.case} ${name}`).toBe(f.extension);
          const failed = !!res.fileFailures?.some((x) => x.output === name);
          expect(failed, `${res.task}_${res.round} ${name}`).toBe(f.extension !== ext);
          sniffed++;
        }
      }
    }
    expect(sniffed).toBeGreaterThan(60);
  });

  it("sends the image inputs to the model as vision parts", () => {
    const images = rp.server.requests.flatMap(imageParts);
    expect(images.length).toBeGreaterThan(0);
    expect(images.some((u) => u.startsWith("data:image/jpeg;base64,"))).toBe(true);
    expect(images.some((u) => u.startsWith("data:image/png;base64,"))).toBe(true);
    // The image-input tasks that survived ran past their LLM node.
    const invoice = r.report.cases.filter((c) => c.key === "InvoiceParsing_1");
    expect(invoice.map((c) => c.end)).toEqual(["judge_pass", "judge_pass", "judge_pass"]);
  });

  it("the tools the workflows call served their cases: TTS, text-to-image and Google search", () => {
    const tool = (name: string) => r.report.tools.find((t) => t.tool === name)!;
    for (const name of [
      "audio/tts",
      "sawyer-shi/tongyi_aigc/tongyi_aigc/z_image_text_2_image",
      "langgenius/google/google/google_search",
      "bowenliang123/md_exporter/md_exporter/md_to_pptx",
    ]) {
      expect(tool(name), name).toBeDefined();
      expect(tool(name).failedHere, name).toBe(0);
    }
  });
});

describe("eval chat2workflow from the command line, with no tool configured (Weft's rules)", () => {
  let rp: Chat2WorkflowReplay;
  beforeAll(async () => {
    rp = await startChat2WorkflowReplay({ tools: false });
  });
  afterAll(async () => rp?.close());

  it("ends a case whose tool nothing serves with tool.not_configured naming the provider/tool", async () => {
    // A representative subset of the recorded answers: TTS, Google search, vision, a PPTX export.
    const all = JSON.parse(readFileSync(answersFile, "utf8")) as Array<{ task: string; round: string }>;
    const keep = new Set(["Podcast_1", "DeepResearch_1", "InvoiceParsing_1", "StoryPPT_3", "StoryPPT_1", "StoryPPT_2"]);
    const dir = mkdtempSync(join(tmpdir(), "weft-c2w-cli-"));
    const subset = join(dir, "subset.json");
    writeFileSync(subset, JSON.stringify(all.filter((a) => keep.has(`${a.task}_${Number(a.round)}`))));
    const stdout = await evalCli([
      "chat2workflow",
      C2W,
      "--answers",
      subset,
      "--out",
      join(dir, "out"),
      "--config",
      rp.configPath,
      "--judge-model",
      JUDGE_MODEL,
      "--fidelity",
      "weft",
    ]);
    const lines = stdout.split("\n");
    const of = (key: string) => lines.filter((l) => l.includes(` ${key} test`));
    for (const l of of("Podcast_1"))
      expect(l).toMatch(/^✗ Podcast_1 test\d: error tool\.not_configured — tool audio\/tts — .*speech model provider/);
    for (const l of of("DeepResearch_1"))
      expect(l).toMatch(/error tool\.not_configured — tool langgenius\/google\/google\/google_search/);
    expect(of("InvoiceParsing_1").every((l) => l.startsWith("✓") && l.includes("judge_pass"))).toBe(true);
    expect(of("StoryPPT_3").every((l) => /files_only|judge_pass/.test(l))).toBe(true);
    expect(of("PaperQA_1")[0]).toMatch(/pass_stage|error resolve\.no_workflow/);
    expect(stdout).toMatch(/file checks: .*\.pptx 3\/3 right/);
    const json = JSON.parse(readFileSync(join(dir, "out", "report.json"), "utf8"));
    expect(json.endStates).toHaveLength(237);
  }, 300_000);
});
