// What a workflow adds to one model call. A local OpenAI-compatible server (the replay server of
// test/support) answers every request after 200 ms; we time, alternating in one process:
//   raw stream   — fetch with stream:true, the SSE body read to its end
//   weft stream  — start → llm → end on the engine (the LLM node always streams) through src/llm
//   raw json     — fetch with stream:false, the JSON body parsed
//   weft json    — start → question-classifier → end (a JSON answer, not streamed) through src/llm
// and print medians and a last line `llm overhead: N%` = (weft wall − raw wall) / raw wall, the worse of
// the two modes. Usage: npx tsx bench/llm.ts [reps=15]

import { spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { runWorkflow } from "../src/engine/run.js";
import { createLlmService } from "../src/llm/index.js";
import { buildWorkflow } from "../test/support/build.js";

const DELAY_MS = 200;
const reps = Number(process.argv[2] ?? 15);
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

const llm = createLlmService({
  endpoints: { ep: { provider: "openai-compatible", baseURL: server.openaiBaseURL, apiKey: "k", model: "m" } },
  default: "ep",
  retry: { maxRetries: 0 },
});
const model = { provider: "openai", name: "m", mode: "chat", completion_params: {} };
const start = { id: "start", type: "start", variables: [{ variable: "q", type: "paragraph", required: true }] };
const streamWf = buildWorkflow({
  nodes: [
    start,
    {
      id: "llm",
      type: "llm",
      model,
      prompt_template: [{ role: "user", text: "{{#start.q#}}" }],
      vision: { enabled: false },
    },
    { id: "end", type: "end", outputs: [{ variable: "a", value_selector: ["llm", "text"] }] },
  ],
  edges: [
    ["start", "llm"],
    ["llm", "end"],
  ],
});
const jsonWf = buildWorkflow({
  nodes: [
    start,
    {
      id: "qc",
      type: "question-classifier",
      model,
      query_variable_selector: ["start", "q"],
      classes: [
        { id: "1", name: "Geography" },
        { id: "2", name: "Other" },
      ],
      vision: { enabled: false },
    },
    { id: "end", type: "end", outputs: [{ variable: "c", value_selector: ["qc", "class_name"] }] },
  ],
  edges: [
    ["start", "qc"],
    ["qc", "end"],
  ],
});

const body = (stream: boolean) =>
  JSON.stringify({ model: "m", messages: [{ role: "user", content: "Capital of France?" }], stream });
async function raw(stream: boolean) {
  const res = await fetch(`${server.openaiBaseURL}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer k" },
    body: body(stream),
  });
  if (stream) await res.text();
  else await res.json();
}
async function weft(stream: boolean) {
  const res = await runWorkflow(stream ? streamWf : jsonWf, { inputs: { q: "Capital of France?" }, services: { llm } });
  if (res.status !== "succeeded") throw new Error(`run ${res.status}: ${res.error?.message}`);
}

const cases = {
  "raw stream": () => raw(true),
  "weft stream": () => weft(true),
  "raw json": () => raw(false),
  "weft json": () => weft(false),
};
const times: Record<string, number[]> = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
for (const f of Object.values(cases)) await f(); // warm-up: connections, JIT, lazy imports
for (let r = 0; r < reps; r++) {
  for (const [name, f] of Object.entries(cases)) {
    const t0 = performance.now();
    await f();
    times[name]!.push(performance.now() - t0);
  }
}
child.stdin!.end();
const tally = String((await lines.next()).value);
await once(child, "exit");
if (tally !== `requests ${4 * (reps + 1)} unmatched 0`)
  throw new Error(`expected one model call per run: the server says ${tally}`);

const med = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]));
for (const [k, v] of Object.entries(med))
  console.log(`${k.padEnd(12)} median ${v.toFixed(1)} ms (${reps} runs, server delay ${DELAY_MS} ms)`);
const streamOver = (med["weft stream"]! - med["raw stream"]!) / med["raw stream"]!;
const jsonOver = (med["weft json"]! - med["raw json"]!) / med["raw json"]!;
console.log(
  `stream: weft/raw ${(med["weft stream"]! / med["raw stream"]!).toFixed(3)}; json: weft/raw ${(med["weft json"]! / med["raw json"]!).toFixed(3)}`,
);
console.log(`llm overhead: ${(Math.max(streamOver, jsonOver) * 100).toFixed(1)}%`);
