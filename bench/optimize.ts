/**
 * Candidate evaluations per minute for the optimiser's evaluator, with and without the workflow-hash
 * cache and concurrency. The executor model is the scripted replay server (each reply delayed by
 * LATENCY ms to stand in for a real model) and the tools are the deterministic directory fixture.
 * The request stream mimics an MCTS run: DISTINCT candidate workflows, each requested REPEAT times
 * (re-proposed duplicates, validation re-checks), in groups of 3 as the search issues them.
 * Run: npx tsx bench/optimize.ts [distinct=6] [repeat=3] [latencyMs=25]
 */
import { performance } from "node:perf_hooks";
import { createLlmService } from "../src/llm/index.js";
import { mineWorkflow } from "../src/mine/index.js";
import { applyEdit } from "../src/optimize/edits.js";
import { Evaluator } from "../src/optimize/evaluate.js";
import {
  DirectoryTools,
  EXECUTOR,
  executorReply,
  isExecutor,
  phoneRecords,
  TOOL_SPECS,
} from "../test/optimize/fixtures.js";
import { startReplayServer } from "../test/support/replay-server.js";

const distinct = Number(process.argv[2] ?? 6);
const repeat = Number(process.argv[3] ?? 3);
const latency = Number(process.argv[4] ?? 25);

const server = await startReplayServer();
server.when(isExecutor, (req) => ({ ...executorReply(req), delayMs: latency }), { times: Infinity });
const llm = createLlmService({
  endpoints: { ep: { provider: "openai-compatible", baseURL: server.openaiBaseURL } },
  default: "ep",
  retry: { maxRetries: 0 },
});
const records = phoneRecords();
const base = mineWorkflow(records, { model: { provider: "openai", name: EXECUTOR }, tools: TOOL_SPECS }).workflow;
const candidates = Array.from({ length: distinct }, (_, k) => {
  const r = applyEdit(base, {
    kind: "refine_prompt",
    id: "synth",
    system: `Answer the task from the tool results (variant ${k}).`,
  });
  if (!r.ok) throw new Error("bench setup: edit rejected");
  return r.workflow;
});
// Interleaved so duplicates arrive after their first evaluation has started, as in a search.
const stream = Array.from({ length: repeat }, () => candidates).flat();

async function measure(label: string, cache: boolean, concurrency: number, group: number) {
  const ev = new Evaluator({
    services: { llm, tools: new DirectoryTools() },
    scorer: async () => 1,
    cache,
    concurrency,
  });
  const calls0 = server.requests.length;
  const t0 = performance.now();
  for (let i = 0; i < stream.length; i += group)
    await Promise.all(stream.slice(i, i + group).map((wf) => ev.evaluate(wf, records)));
  const ms = performance.now() - t0;
  const perMin = (stream.length / ms) * 60_000;
  console.log(
    `${label.padEnd(40)} ${String(stream.length).padStart(4)} evals  ${(ms / 1000).toFixed(2).padStart(7)} s  ${perMin.toFixed(1).padStart(8)} evals/min  runs ${String(ev.runs).padStart(3)}  hits ${String(ev.hits).padStart(3)}  model calls ${server.requests.length - calls0}`,
  );
  return perMin;
}

console.log(
  `${records.length} tasks per evaluation, ${distinct} distinct candidates × ${repeat}, model latency ${latency} ms\n`,
);
const a = await measure("sequential, no cache", false, 1, 1);
const b = await measure("sequential, cache", true, 1, 1);
const c = await measure("concurrent (8 runs, 3 cands), no cache", false, 8, 3);
const d = await measure("concurrent (8 runs, 3 cands), cache", true, 8, 3);
console.log(
  `\nspeed-up over sequential without cache: cache ×${(b / a).toFixed(1)}, concurrency ×${(c / a).toFixed(1)}, both ×${(d / a).toFixed(1)}`,
);
await server.close();
