// CPU per run of 1,000 concurrent runs of one 5-node workflow (start → three text steps → end) on Weft's
// engine and on Mastra's workflow engine, alternating in one process; medians over ROUNDS rounds.
//
// Mastra is not a dependency of Weft: install it outside the repository first (0.24.9 is the last release
// whose engines field allows Node 20; it needs zod 3):
//   npm i --prefix /tmp/peers @mastra/core@0.24.9 zod@3.25.76
// Usage: npx tsx bench/peer-mastra.ts [BASELINE_CHECKOUT] [rounds=9]   (PEERS_DIR=/tmp/peers by default)
// Both engines keep runs in memory (Weft's MemoryRunStore, Mastra without storage). Weft's middle nodes are
// template-transform nodes rendering `{{ v }}.` (Jinja); Mastra's are steps appending "." in JavaScript, with
// zod input and output schemas as Mastra requires. Every run's output is checked.
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { loadavg } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { runWorkflow } from "../src/engine/run.js";
import { buildWorkflow, tpl } from "../test/support/build.js";

const baseDir = process.argv[2] ? resolve(process.argv[2]) : undefined;
const rounds = Number(process.argv[3] ?? 9);
const peersDir = resolve(process.env.PEERS_DIR ?? "/tmp/peers");
const RUNS = 1000;
const STEPS = 3;
const expected = (x: string) => `${x}${".".repeat(STEPS)}`;

const fromPeers = createRequire(join(peersDir, "package.json"));
function peerModule(name: string): string {
  try {
    return pathToFileURL(fromPeers.resolve(name)).href;
  } catch {
    process.stderr.write(
      `${name} is not installed in ${peersDir}: npm i --prefix ${peersDir} @mastra/core@0.24.9 zod@3.25.76\n`,
    );
    process.exit(2);
  }
}
if (baseDir && !existsSync(join(baseDir, "src/engine/run.ts"))) {
  process.stderr.write("usage: npx tsx bench/peer-mastra.ts [BASELINE_CHECKOUT (with src/engine/run.ts)] [rounds]\n");
  process.exit(2);
}

const weftWf = buildWorkflow({
  nodes: [
    { id: "start", type: "start", variables: [{ variable: "x", type: "text-input" }] },
    ...Array.from({ length: STEPS }, (_, i) =>
      tpl(`t${i}`, "{{ v }}.", { v: i === 0 ? ["start", "x"] : [`t${i - 1}`, "output"] }),
    ),
    { id: "end", type: "end", outputs: [{ variable: "out", value_selector: [`t${STEPS - 1}`, "output"] }] },
  ],
  edges: [
    ["start", "t0"],
    ...Array.from({ length: STEPS - 1 }, (_, i) => [`t${i}`, `t${i + 1}`] as [string, string]),
    [`t${STEPS - 1}`, "end"],
  ],
});

type RunOne = (x: string) => Promise<unknown>;

function weftEngine(run: typeof runWorkflow): RunOne {
  return async (x) => {
    const res = await run(weftWf, { inputs: { x } });
    if (res.status !== "succeeded") throw new Error(`weft run ${res.status}: ${res.error?.message}`);
    return res.outputs.out;
  };
}

async function mastraEngine(): Promise<RunOne> {
  const { createStep, createWorkflow } = await import(peerModule("@mastra/core/workflows"));
  const { z } = await import(peerModule("zod"));
  const text = z.object({ v: z.string() });
  const step = (id: string, f: (v: string) => string) =>
    createStep({
      id,
      inputSchema: text,
      outputSchema: text,
      execute: async ({ inputData }: { inputData: { v: string } }) => ({ v: f(inputData.v) }),
    });
  let flow = createWorkflow({
    id: "five",
    inputSchema: z.object({ x: z.string() }),
    outputSchema: z.object({ out: z.string() }),
  }).then(
    createStep({
      id: "start",
      inputSchema: z.object({ x: z.string() }),
      outputSchema: text,
      execute: async ({ inputData }: { inputData: { x: string } }) => ({ v: inputData.x }),
    }),
  );
  for (let i = 0; i < STEPS; i++) flow = flow.then(step(`t${i}`, (v) => `${v}.`));
  const wf = flow
    .then(
      createStep({
        id: "end",
        inputSchema: text,
        outputSchema: z.object({ out: z.string() }),
        execute: async ({ inputData }: { inputData: { v: string } }) => ({ out: inputData.v }),
      }),
    )
    .commit();
  return async (x) => {
    const run = await wf.createRunAsync();
    const res = await run.start({ inputData: { x } });
    if (res.status !== "success") throw new Error(`mastra run ${res.status}: ${JSON.stringify(res.error ?? res)}`);
    return res.result.out;
  };
}

const engines: Record<string, RunOne> = { weft: weftEngine(runWorkflow), mastra: await mastraEngine() };
if (baseDir)
  engines.baseline = weftEngine((await import(pathToFileURL(join(baseDir, "src/engine/run.ts")).href)).runWorkflow);

const cpuNow = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};
/** 1,000 runs started at once; CPU µs and wall ms per run. */
async function batch(name: string, one: RunOne): Promise<{ cpu: number; wall: number }> {
  const c0 = cpuNow();
  const t0 = performance.now();
  const outs = await Promise.all(Array.from({ length: RUNS }, (_, i) => one(`r${i}`)));
  const wall = performance.now() - t0;
  const cpu = cpuNow() - c0;
  outs.forEach((o, i) => {
    if (o !== expected(`r${i}`)) throw new Error(`${name}: run ${i} answered ${JSON.stringify(o)}`);
  });
  return { cpu: cpu / RUNS, wall: wall / RUNS };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const cpus: Record<string, number[]> = Object.fromEntries(Object.keys(engines).map((k) => [k, []]));
const walls: Record<string, number[]> = Object.fromEntries(Object.keys(engines).map((k) => [k, []]));
const names = Object.keys(engines);
for (let r = -2; r < rounds; r++) {
  // Rotate who goes first, so one engine's garbage and the machine's drift fall on all alike.
  const order = names.map((_, i) => names[(i + Math.max(r, 0)) % names.length]!);
  for (const name of order) {
    const m = await batch(name, engines[name]!);
    if (r >= 0) {
      cpus[name]!.push(m.cpu);
      walls[name]!.push(m.wall);
    }
  }
}
console.log(
  `load average: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}`,
);
for (const name of names) {
  console.log(
    `${name.padEnd(9)} ${(median(cpus[name]!) / 1000).toFixed(3)} ms CPU/run, ${median(walls[name]!).toFixed(3)} ms wall/run (median of ${rounds} rounds of ${RUNS} concurrent ${STEPS + 2}-node runs)`,
  );
}
console.log(`weft/mastra CPU per run: ${(median(cpus.weft!) / median(cpus.mastra!)).toFixed(3)}`);
if (baseDir) {
  console.log(`baseline/mastra CPU per run: ${(median(cpus.baseline!) / median(cpus.mastra!)).toFixed(3)}`);
  console.log(`this/baseline CPU per run: ${(median(cpus.weft!) / median(cpus.baseline!)).toFixed(3)}`);
}
process.exit(0);
