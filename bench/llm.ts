// What a workflow adds to one model call. A local OpenAI-compatible server (the replay server of
// test/support) answers every request after 200 ms; we time, alternating in one process:
//   raw stream   — fetch with stream:true, the SSE body read to its end
//   weft stream  — start → llm → end on the engine (the LLM node always streams) through src/llm
//   raw json     — fetch with stream:false, the JSON body parsed
//   weft json    — start → question-classifier → end (a JSON answer, not streamed) through src/llm
// and print medians and a last line `llm overhead: N%` = (weft wall − raw wall) / raw wall, the worse of
// the two modes. Usage: npx tsx bench/llm.ts [reps=15] [BASELINE_CHECKOUT]
// With a baseline (another checkout, node_modules linked), its engine and LLM layer run the same two workflows
// in the same rounds, and the last lines before the overhead are this/baseline ratios.

import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";
import { runWorkflow } from "../src/engine/run.js";
import { createLlmService } from "../src/llm/index.js";
import { jsonWf, streamWf } from "./support/llm-workflows.js";

const DELAY_MS = 200;
const reps = Number(process.argv[2] ?? 15);
const baseDir = process.argv[3] ? resolve(process.argv[3]) : undefined;
if (baseDir && !existsSync(join(baseDir, "src/llm/index.ts"))) {
  process.stderr.write("usage: npx tsx bench/llm.ts [reps] [BASELINE_CHECKOUT (a directory with src/llm/index.ts)]\n");
  process.exit(2);
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

// The server runs in its own process (as a real model server would), started through tsx like this bench.
const child = spawn(
  process.execPath,
  [...process.execArgv, new URL("./support/llm-server.ts", import.meta.url).pathname, String(DELAY_MS)],
  {
    stdio: ["pipe", "pipe", "inherit"],
  },
);
const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
const baseURL = String((await lines.next()).value);
const server = { openaiBaseURL: baseURL };

const llmConfig = {
  endpoints: { ep: { provider: "openai-compatible", baseURL: server.openaiBaseURL, apiKey: "k", model: "m" } },
  default: "ep",
  retry: { maxRetries: 0 },
};
type Run = typeof runWorkflow;
const mine = { run: runWorkflow, llm: createLlmService(llmConfig as Parameters<typeof createLlmService>[0]) };
async function loadBaseline(root: string): Promise<{ run: Run; llm: unknown }> {
  const mod = (p: string) => import(pathToFileURL(join(root, p)).href);
  const { runWorkflow: run } = await mod("src/engine/run.ts");
  const { createLlmService: create } = await mod("src/llm/index.ts");
  return { run, llm: create(llmConfig) };
}
const base = baseDir ? await loadBaseline(baseDir) : undefined;
const body = (stream: boolean) =>
  JSON.stringify({ model: "m", messages: [{ role: "user", content: "Capital of France?" }], stream });
/** When the first text reached the caller in the current case (ms since it started), streamed cases only. */
let firstText: number | undefined;
let caseStart = 0;
const sawText = () => {
  firstText ??= performance.now() - caseStart;
};
async function raw(stream: boolean) {
  const res = await fetch(`${server.openaiBaseURL}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer k" },
    body: body(stream),
  });
  if (!stream) {
    await res.json();
    return;
  }
  const decoder = new TextDecoder();
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  for (let r = await reader.read(); !r.done; r = await reader.read()) {
    if (decoder.decode(r.value, { stream: true }).includes('"content"')) sawText();
  }
}
async function weft(stream: boolean, engine: { run: Run; llm: unknown } = mine) {
  const res = await engine.run(stream ? streamWf : jsonWf, {
    inputs: { q: "Capital of France?" },
    services: { llm: engine.llm } as NonNullable<Parameters<Run>[1]>["services"],
    onEvent: (e) => {
      if (e.type === "text_chunk") sawText();
    },
  });
  if (res.status !== "succeeded") throw new Error(`run ${res.status}: ${res.error?.message}`);
  // A run that ends without its answer measured less than the case it names.
  const answer = stream ? res.outputs.a : res.outputs.c;
  if (typeof answer !== "string" || answer === "")
    throw new Error(`run ended without its answer: ${JSON.stringify(res.outputs)}`);
}

const cases: Record<string, () => Promise<void>> = {
  "raw stream": () => raw(true),
  "weft stream": () => weft(true),
  "raw json": () => raw(false),
  "weft json": () => weft(false),
};
if (base) {
  cases["base stream"] = () => weft(true, base as { run: Run; llm: unknown });
  cases["base json"] = () => weft(false, base as { run: Run; llm: unknown });
}
const times: Record<string, number[]> = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
/** CPU of this process per case (the model server runs in its own), ms. */
const cpus: Record<string, number[]> = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
const firsts: Record<string, number[]> = {};
// Warm-up: connections, JIT, lazy imports. Its times are what the first call of a fresh process (one
// `weft run`) pays, printed apart from the medians.
const cold: Record<string, number> = {};
for (const [name, f] of Object.entries(cases)) {
  const t0 = performance.now();
  await f();
  cold[name] = performance.now() - t0;
}
for (let r = 0; r < reps; r++) {
  for (const [name, f] of Object.entries(cases)) {
    firstText = undefined;
    const cpu0 = process.cpuUsage();
    caseStart = performance.now();
    await f();
    times[name]!.push(performance.now() - caseStart);
    const cpu = process.cpuUsage(cpu0);
    cpus[name]!.push((cpu.user + cpu.system) / 1000);
    if (firstText !== undefined) firsts[name] = [...(firsts[name] ?? []), firstText];
  }
}
child.stdin!.end();
const tally = String((await lines.next()).value);
await once(child, "exit");
if (tally !== `requests ${Object.keys(cases).length * (reps + 1)} unmatched 0`)
  throw new Error(`expected one model call per run: the server says ${tally}`);

const med = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]));
for (const [k, v] of Object.entries(med)) {
  const first = firsts[k] ? `, first text at ${median(firsts[k]).toFixed(1)} ms` : "";
  console.log(
    `${k.padEnd(12)} median ${v.toFixed(1)} ms, CPU ${median(cpus[k]!).toFixed(2)} ms${first} (${reps} runs, server delay ${DELAY_MS} ms)`,
  );
}
console.log(
  `first call in this process: ${Object.entries(cold)
    .map(([k, v]) => `${k} ${v.toFixed(0)} ms`)
    .join(", ")}`,
);
const streamOver = (med["weft stream"]! - med["raw stream"]!) / med["raw stream"]!;
const jsonOver = (med["weft json"]! - med["raw json"]!) / med["raw json"]!;
console.log(
  `stream: weft/raw ${(med["weft stream"]! / med["raw stream"]!).toFixed(3)}; json: weft/raw ${(med["weft json"]! / med["raw json"]!).toFixed(3)}`,
);
if (base) {
  console.log(
    `this/baseline: stream ${(med["weft stream"]! / med["base stream"]!).toFixed(3)}, json ${(med["weft json"]! / med["base json"]!).toFixed(3)}`,
  );
}
const over = (a: string, b: string) =>
  `+${(med[a]! - med[b]!).toFixed(1)} ms wall, +${(median(cpus[a]!) - median(cpus[b]!)).toFixed(2)} ms CPU`;
console.log(`over raw fetch: stream ${over("weft stream", "raw stream")}; json ${over("weft json", "raw json")}`);
if (base)
  console.log(
    `baseline over raw fetch: stream ${over("base stream", "raw stream")}; json ${over("base json", "raw json")}`,
  );
console.log(`llm overhead: ${(Math.max(streamOver, jsonOver) * 100).toFixed(1)}%`);
