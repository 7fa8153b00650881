/**
 * The Chat2Workflow resolve pipeline over every recorded model (or the ones named): for each, the pass stage
 * on its 79 answers, then all 237 test cases run on the engine with the replay model and judge and the
 * replay tools (test/support/chat2workflow-replay.ts), printing where every case ends, the file-extension
 * checks per required type, the tools with how their cases ended, and the wall time.
 * Run: npx tsx bench/chat2workflow-resolve.ts [model …] [--concurrency 4] [--fidelity weft|upstream] [--quiet]
 * (models: the file names in shared/corpus/chat2workflow/model-outputs without .json)
 */
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { resolveJudgeFrom } from "../src/cli/commands/eval-chat2workflow.js";
import { runChat2Workflow } from "../src/eval/chat2workflow.js";
import { parseFidelity } from "../src/eval/fidelity.js";
import { loadAnswers, loadSuite } from "../src/eval/pass.js";
import { loadUpstreamPrompt } from "../src/eval/upstream/prompts.js";
import { corpusDir } from "../test/eval/corpus.js";
import { JUDGE_MODEL, startChat2WorkflowReplay } from "../test/support/chat2workflow-replay.js";

const args = process.argv.slice(2);
const at = args.indexOf("--concurrency");
const concurrency = at >= 0 ? Number(args[at + 1]) : 4;
const quiet = args.includes("--quiet");
const fa = args.indexOf("--fidelity");
const fidelity = parseFidelity(fa >= 0 ? args[fa + 1]! : "weft");
const named = args.filter((a, i) => !a.startsWith("--") && i !== at + 1 && i !== fa + 1);

/** The replay judge ignores its system prompt, so upstream's own text is not needed to measure the pipeline. */
function standInPrompt() {
  const dir = mkdtempSync(join(tmpdir(), "weft-c2w-bench-"));
  mkdirSync(join(dir, "prompts"));
  writeFileSync(join(dir, "prompts", "evaluation_resolve_system.txt"), "stand-in: the replay judge ignores it\n");
  return loadUpstreamPrompt(dir, "resolve");
}
const C2W = join(corpusDir(), "chat2workflow");
const models = named.length
  ? named
  : readdirSync(join(C2W, "model-outputs"))
      .filter((f) => f.endsWith(".json"))
      .map((f) => f.replace(/\.json$/, ""));

const suite = loadSuite(C2W);
const summary: string[] = [];
for (const model of models) {
  const rp = await startChat2WorkflowReplay();
  try {
    const { records } = loadAnswers(join(C2W, "model-outputs", `${model}.json`));
    const t0 = performance.now();
    const r = await runChat2Workflow({
      datasetDir: C2W,
      suite,
      records,
      model,
      outDir: join(rp.dir, "out"),
      services: rp.services,
      resolveJudge: resolveJudgeFrom(rp.configPath, JUDGE_MODEL, fidelity),
      fidelity,
      ...(fidelity === "upstream" ? { upstreamPrompt: standInPrompt() } : {}),
      concurrency,
    });
    const seconds = (performance.now() - t0) / 1000;
    console.log(
      `\n=== ${model}: ${r.workflows.written}/79 survive the pass stage, ${r.resolve.cases} cases, ${seconds.toFixed(1)} s`,
    );
    if (!quiet) console.log(r.report.lines.join("\n"));
    const ends = Object.entries(r.report.byEndState).sort((a, b) => b[1] - a[1]);
    console.log(`end states: ${ends.map(([k, n]) => `${k} ${n}`).join(", ")}`);
    console.log("file checks (extension: right/checked of required, wrong extension, missing or not a file, seen):");
    for (const f of r.report.fileChecks)
      console.log(
        `  ${f.extension.padEnd(6)} ${f.right}/${f.checked} of ${f.required}, wrong ${f.wrongExtension}, missing ${f.missingOrNotFile}, seen ${f.seen.join(" ") || "–"}`,
      );
    console.log("tools:");
    for (const t of r.report.tools)
      console.log(
        `  ${t.tool}: ${t.cases} cases — ${Object.entries(t.ends)
          .map(([k, n]) => `${k} ${n}`)
          .join(", ")}`,
      );
    console.log(`report: ${r.files.markdown}`);
    const errors = r.report.cases.filter((c) => c.end === "error").length;
    summary.push(
      `${model.padEnd(34)} survive ${String(r.workflows.written).padStart(2)}/79  resolve ${String(r.resolve.passed).padStart(3)}/237  run errors ${String(errors).padStart(3)}  ${seconds.toFixed(1)} s`,
    );
  } finally {
    await rp.close();
  }
}
console.log(`\n${summary.join("\n")}`);
