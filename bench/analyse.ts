/**
 * Analyser scaling: generated workflows (chains of LLM steps, if-else diamonds merged by
 * aggregators, parallel fan-out/join, iterations; every node reads upstream values) of growing
 * size. Prints the median time per run and per node, and the per-node ratio against the smallest
 * size: near-linear scaling keeps that ratio close to 1. Times are process CPU time (user + system),
 * which is steadier than wall time on a shared machine; wall time is shown too.
 *
 *   npx tsx bench/analyse.ts [runs]
 */
import { analyse } from "../src/analysis/index.js";
import { WorkflowSchema } from "../src/ir/workflow.js";
import { nodeCatalogue } from "../src/nodes/index.js";
import { genWorkflow } from "../test/analysis/gen.js";

const SIZES = [10, 50, 100, 500, 1000, 2000];
const RUNS = Number(process.argv[2] ?? 7);

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

// Fresh node objects for every run: describeNode memoises per node object, and a real caller
// analyses a new workflow each time.
const fresh = (size: number) => WorkflowSchema.parse(JSON.parse(JSON.stringify(genWorkflow(size, 42))));

// Warm-up over every size, so the small sizes measured first do not pay for JIT compilation.
for (const size of SIZES) for (let i = 0; i < 2; i++) analyse(fresh(size), nodeCatalogue);

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

const rows: Array<{ size: number; nodes: number; edges: number; ms: number; wall: number; perNode: number }> = [];
for (const size of SIZES) {
  const times: number[] = [];
  const walls: number[] = [];
  let shape = { nodes: 0, edges: 0 };
  for (let r = 0; r < RUNS; r++) {
    const w = fresh(size);
    shape = { nodes: w.nodes.length, edges: w.edges.length };
    const c0 = cpuMs();
    const t0 = performance.now();
    const res = analyse(w, nodeCatalogue);
    walls.push(performance.now() - t0);
    times.push(cpuMs() - c0);
    const errs = res.diagnostics.filter((d) => d.severity === "error");
    if (errs.length)
      throw new Error(`generated workflow of size ${size} has errors: ${errs[0]!.code} ${errs[0]!.message}`);
  }
  const ms = median(times);
  rows.push({ size, ...shape, ms, wall: median(walls), perNode: ms / shape.nodes });
}
const basePerNode = rows[0]!.perNode;
console.log(`analyse(): median of ${RUNS} runs`);
console.log("size   nodes  edges  cpu ms/run  wall ms/run    µs/node   ratio/node");
for (const r of rows) {
  console.log(
    `${String(r.size).padStart(4)}  ${String(r.nodes).padStart(6)} ${String(r.edges).padStart(6)} ${r.ms.toFixed(2).padStart(11)} ${r.wall.toFixed(2).padStart(12)} ${(r.perNode * 1000).toFixed(1).padStart(10)} ${(r.perNode / basePerNode).toFixed(2).padStart(12)}`,
  );
}
