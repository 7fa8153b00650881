// Engine benchmarks: per-node overhead, critical-path efficiency of parallel branches, and throughput
// of many concurrent small runs. Prints medians and ratios measured in the same process.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_CONCURRENCY, runWorkflow } from "../src/engine/run.js";
import { openStores } from "../src/store/open.js";
import { buildWorkflow, tpl } from "../test/support/build.js";
import { withSleepNode } from "../test/support/test-nodes.js";

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function chainOverhead(n: number, reps: number) {
  const nodes = [
    { id: "start", type: "start", variables: [] },
    ...Array.from({ length: n }, (_, i) => tpl(`t${i}`, "x")),
    { id: "end", type: "end", outputs: [] },
  ];
  const edges: Array<[string, string]> = [["start", "t0"]];
  for (let i = 1; i < n; i++) edges.push([`t${i - 1}`, `t${i}`]);
  edges.push([`t${n - 1}`, "end"]);
  const wf = buildWorkflow({ nodes, edges });
  const times: number[] = [];
  // Warm-up runs let the JIT settle; only the timed repetitions count.
  for (let r = 0; r < 3; r++) await runWorkflow(wf, { maxSteps: n + 10 });
  for (let r = 0; r < reps; r++) {
    const t0 = performance.now();
    const res = await runWorkflow(wf, { maxSteps: n + 10 });
    if (res.status !== "succeeded") throw new Error(`chain run ${res.status}: ${res.error?.message}`);
    times.push(performance.now() - t0);
  }
  return median(times) / (n + 2);
}

/** The same chain on the durable SQLite store: what a `weft run` pays per committed node. */
async function durableChain(n: number, reps: number) {
  const nodes = [
    { id: "start", type: "start", variables: [] },
    ...Array.from({ length: n }, (_, i) => tpl(`t${i}`, "x")),
    { id: "end", type: "end", outputs: [] },
  ];
  const edges: Array<[string, string]> = [["start", "t0"]];
  for (let i = 1; i < n; i++) edges.push([`t${i - 1}`, `t${i}`]);
  edges.push([`t${n - 1}`, "end"]);
  const wf = buildWorkflow({ nodes, edges });
  const dir = mkdtempSync(join(tmpdir(), "weft-bench-"));
  const stores = await openStores(join(dir, "bench.db"));
  const store = stores.runs;
  try {
    await runWorkflow(wf, { maxSteps: n + 10, store });
    const times: number[] = [];
    for (let r = 0; r < reps; r++) {
      const t0 = performance.now();
      const res = await runWorkflow(wf, { maxSteps: n + 10, store });
      if (res.status !== "succeeded") throw new Error(`durable chain run ${res.status}: ${res.error?.message}`);
      times.push(performance.now() - t0);
    }
    return median(times) / (n + 2);
  } finally {
    await stores.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function wideDag(width: number, depth: number, ms: number) {
  // width parallel chains of `depth` sleeping nodes, joined at the end: critical path = depth * ms
  const nodes: Array<Record<string, unknown> & { id: string; type: string }> = [
    { id: "start", type: "start", variables: [] },
  ];
  const edges: Array<[string, string]> = [];
  for (let w = 0; w < width; w++) {
    for (let d = 0; d < depth; d++) {
      nodes.push({ id: `n${w}_${d}`, type: "test-sleep", ms });
      edges.push([d === 0 ? "start" : `n${w}_${d - 1}`, `n${w}_${d}`]);
    }
    edges.push([`n${w}_${depth - 1}`, "end"]);
  }
  nodes.push({ id: "end", type: "end", outputs: [] });
  const wf = buildWorkflow({ nodes, edges });
  const run = async (concurrency: number | undefined) => {
    const t0 = performance.now();
    const r = await runWorkflow(wf, { concurrency, maxSteps: 10_000, nodeTypes: withSleepNode });
    if (r.status !== "succeeded") throw new Error(r.error?.message);
    return performance.now() - t0;
  };
  // At the engine's default concurrency, as users run it; 8 was the default before DEFAULT_CONCURRENCY.
  const parallel = median([await run(undefined), await run(undefined), await run(undefined)]);
  const eight = median([await run(8), await run(8), await run(8)]);
  const serial = await run(1);
  return { parallel, eight, serial, critical: depth * ms };
}

async function manyRuns(count: number) {
  const wf = buildWorkflow({
    nodes: [
      { id: "start", type: "start", variables: [{ variable: "x", type: "text-input" }] },
      tpl("t", "{{ x }}!", { x: ["start", "x"] }),
      { id: "end", type: "end", outputs: [{ variable: "o", value_selector: ["t", "output"] }] },
    ],
    edges: [
      ["start", "t"],
      ["t", "end"],
    ],
  });
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
  const t0 = performance.now();
  const results = await Promise.all(
    Array.from({ length: count }, (_, i) => runWorkflow(wf, { inputs: { x: String(i) } })),
  );
  const secs = (performance.now() - t0) / 1000;
  clearInterval(timer);
  const ok = results.filter((r) => r.status === "succeeded" && r.outputs.o === `${results.indexOf(r)}!`).length;
  return { runsPerSec: count / secs, peakRssMb: peak / 1e6, ok };
}

const perNode10 = await chainOverhead(10, 7);
const perNode1000 = await chainOverhead(1000, 5);
console.log(
  `(a) chain overhead per node: 1000-node chain ${(perNode1000 * 1000).toFixed(1)} µs/node; 10-node chain ${(perNode10 * 1000).toFixed(1)} µs/node; ratio ${(perNode1000 / perNode10).toFixed(2)}`,
);
const dag = await wideDag(16, 5, 40);
console.log(
  `(b) wide DAG 16×5 of 40 ms sleeps: critical path ${dag.critical} ms, wall at the default concurrency (${DEFAULT_CONCURRENCY}) ${dag.parallel.toFixed(0)} ms (ratio ${(dag.parallel / dag.critical).toFixed(3)}, target ≤ 1.05), at 8 ${dag.eight.toFixed(0)} ms (ratio ${(dag.eight / dag.critical).toFixed(3)}), one-at-a-time ${dag.serial.toFixed(0)} ms (speed-up ${(dag.serial / dag.parallel).toFixed(1)}×)`,
);
const many = await manyRuns(1000);
console.log(
  `(c) 1000 concurrent small runs: ${many.runsPerSec.toFixed(0)} runs/s, peak RSS ${many.peakRssMb.toFixed(0)} MB, correct ${many.ok}/1000`,
);
const durable = await durableChain(200, 5);
console.log(
  `(d) durable chain on SQLite (synchronous=FULL): 200-node chain ${(durable * 1000).toFixed(1)} µs/node; ${(durable / perNode1000).toFixed(1)}× the in-memory store`,
);
