// µs per node of a chain of 20 template-transform nodes (in-memory store), this checkout against a baseline
// checkout, alternating in one process; medians of REPS runs, wall clock and the process's CPU time (on a
// shared machine the CPU time is the steadier of the two).
// Usage: npx tsx bench/template-chain.ts [BASELINE_CHECKOUT] [reps]
import { loadavg } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { runWorkflow } from "../src/engine/run.js";
import { buildWorkflow, tpl } from "../test/support/build.js";

const baseDir = process.argv[2] ? resolve(process.argv[2]) : undefined;
const reps = Number(process.argv[3] ?? 40);
const N = 20;
const wf = buildWorkflow({
  nodes: [
    { id: "start", type: "start", variables: [{ variable: "x", type: "text-input" }] },
    ...Array.from({ length: N }, (_, i) =>
      tpl(`t${i}`, "{{ v }}.", { v: i === 0 ? ["start", "x"] : [`t${i - 1}`, "output"] }),
    ),
    { id: "end", type: "end", outputs: [{ variable: "out", value_selector: [`t${N - 1}`, "output"] }] },
  ],
  edges: [
    ["start", "t0"],
    ...Array.from({ length: N - 1 }, (_, i) => [`t${i}`, `t${i + 1}`] as [string, string]),
    [`t${N - 1}`, "end"],
  ],
});
type Run = typeof runWorkflow;
const engines: Record<string, Run> = { this: runWorkflow };
if (baseDir) engines.baseline = (await import(pathToFileURL(join(baseDir, "src/engine/run.ts")).href)).runWorkflow;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const times: Record<string, number[]> = Object.fromEntries(Object.keys(engines).map((k) => [k, []]));
const cpus: Record<string, number[]> = Object.fromEntries(Object.keys(engines).map((k) => [k, []]));
const cpuNow = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};
for (let r = -3; r < reps; r++) {
  for (const [name, run] of Object.entries(engines)) {
    const c0 = cpuNow();
    const t0 = performance.now();
    const res = await run(wf, { inputs: { x: "a" } });
    const us = ((performance.now() - t0) * 1000) / (N + 2);
    const cpu = (cpuNow() - c0) / (N + 2);
    if (res.outputs.out !== `a${".".repeat(N)}`)
      throw new Error(`${name}: wrong output ${JSON.stringify(res.outputs)}`);
    if (r >= 0) {
      times[name]!.push(us);
      cpus[name]!.push(cpu);
    }
  }
}
console.log(
  `load average: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}`,
);
for (const [k, v] of Object.entries(times))
  console.log(
    `${k.padEnd(9)} ${median(v).toFixed(0)} µs/node wall, ${median(cpus[k]!).toFixed(0)} µs/node CPU (median of ${reps}, ${N + 2}-node chain)`,
  );
if (baseDir) {
  const wall = median(times.this!) / median(times.baseline!);
  const cpu = median(cpus.this!) / median(cpus.baseline!);
  console.log(`this/baseline: wall ${wall.toFixed(3)}, CPU ${cpu.toFixed(3)}`);
}
process.exit(0);
