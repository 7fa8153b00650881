// Tracing cost on the engine, measured in one process: a chain of template nodes run
//   (none) on a build of the engine with no observer code path at all: esbuild bundles src/engine/run.ts with the
//          observer hooks (run span, attempt span) replaced by `undefined` and folded away as dead code;
//   (off)  on the engine as shipped, tracing off (`weft run` without OTEL_*: no observer, services unwrapped);
//   (on)   on the engine as shipped with tracing on: OTLP/HTTP protobuf export to a loopback receiver.
// Rounds alternate none/off (and then off/on) so machine load hits both alike; prints medians per node, the off/none ratio (the
// issue's bar: within 1%) and what tracing on costs per node in µs.
// Usage: npx tsx bench/tracing.ts [--nodes 200] [--rounds 30] [--reps 10] [--clock cpu|wall]

import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { build, type Plugin } from "esbuild";
import type { runWorkflow as RunWorkflow } from "../src/engine/run.js";
import type { Workflow } from "../src/ir/workflow.js";
import { tracingSettings } from "../src/observability/config.js";
import { tracedServices } from "../src/observability/traced-services.js";
import { startTracing } from "../src/observability/tracing.js";
import { buildWorkflow, tpl } from "../test/support/build.js";

const { values } = parseArgs({
  options: {
    nodes: { type: "string", default: "200" },
    rounds: { type: "string", default: "30" },
    reps: { type: "string", default: "10" },
    clock: { type: "string", default: "cpu" },
  },
});
const CLOCK = values.clock;
if (CLOCK !== "cpu" && CLOCK !== "wall") throw new Error("--clock is cpu or wall");
const N = Number(values.nodes);
const ROUNDS = Number(values.rounds);
const REPS = Number(values.reps);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const root = join(import.meta.dirname, "..");

/**
 * The observer hooks of the engine, replaced by `undefined` so that minification folds `undefined ? hook : plain`
 * to `plain`: the build then has no tracing code path. Each replacement must match, or the bench refuses to run.
 */
const HOOKS: Record<string, Array<[string, string]>> = {
  "src/engine/run.ts": [["return o.observer ? o.observer.run(", "return undefined ? o.observer.run("]],
  "src/engine/attempt.ts": [["const obs = run.observer;", "const obs = undefined;"]],
};
const stripObserver: Plugin = {
  name: "strip-observer",
  setup(b) {
    b.onLoad({ filter: /src\/engine\/(run|attempt)\.ts$/ }, (args) => {
      const rel = args.path.slice(root.length + 1);
      let text = readFileSync(args.path, "utf8");
      for (const [from, to] of HOOKS[rel] ?? []) {
        if (!text.includes(from)) throw new Error(`bench/tracing: ${rel} no longer contains "${from}"; update HOOKS`);
        text = text.replace(from, to);
      }
      return { contents: text, loader: "ts" };
    });
  },
};

/** One bundle of the engine (its own node registry), with or without the observer code path. */
async function engineBuild(dir: string, name: string, strip: boolean): Promise<typeof RunWorkflow> {
  const outfile = join(dir, `${name}.mjs`);
  await build({
    entryPoints: [join(root, "src/engine/run.ts")],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    minifySyntax: true,
    outfile,
    plugins: strip ? [stripObserver] : [],
    logLevel: "error",
  });
  const text = readFileSync(outfile, "utf8");
  if (strip && (text.includes("observer.run(") || text.includes(".attempt({")))
    throw new Error("observer code survived");
  if (!strip && !text.includes("observer.run(")) throw new Error("the shipped build lost its observer code path");
  return ((await import(pathToFileURL(outfile).href)) as { runWorkflow: typeof RunWorkflow }).runWorkflow;
}

function chain(n: number): Workflow {
  const nodes = [
    { id: "start", type: "start", variables: [] },
    ...Array.from({ length: n }, (_, i) => tpl(`t${i}`, "x")),
    { id: "end", type: "end", outputs: [] },
  ];
  const edges: Array<[string, string]> = [["start", "t0"]];
  for (let i = 1; i < n; i++) edges.push([`t${i - 1}`, `t${i}`]);
  edges.push([`t${n - 1}`, "end"]);
  return buildWorkflow({ nodes, edges });
}

/**
 * This process's CPU time (user + system, all its threads) in ms, or wall time with --clock wall. CPU time is what
 * the comparison is about, and on a shared machine it is not inflated by the time other processes hold the cores.
 */
function now(): number {
  if (CLOCK === "wall") return performance.now();
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** Median µs per node of REPS runs. */
async function perNode(run: () => Promise<{ status: string }>): Promise<number> {
  const times: number[] = [];
  for (let r = 0; r < REPS; r++) {
    const t0 = now();
    const res = await run();
    if (res.status !== "succeeded") throw new Error(`run ${res.status}`);
    times.push(now() - t0);
  }
  return (median(times) * 1000) / (N + 2);
}

/** An OTLP/HTTP endpoint on loopback that accepts and counts what it is sent (the cost of export is the client's). */
async function sink() {
  let bytes = 0;
  const server = createServer((req, res) => {
    req.on("data", (c: Buffer) => {
      bytes += c.length;
    });
    req.on("end", () => res.writeHead(200, { "content-type": "application/x-protobuf" }).end());
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`,
    bytes: () => bytes,
    close: () => new Promise((r) => server.close(r)),
  };
}

async function main() {
  // Inside the checkout, so the bundles' external packages resolve from its node_modules.
  const cache = join(root, "node_modules", ".cache");
  mkdirSync(cache, { recursive: true });
  const dir = mkdtempSync(join(cache, "weft-bench-tracing-"));
  const receiver = await sink();
  try {
    const none = await engineBuild(dir, "none", true);
    const shipped = await engineBuild(dir, "shipped", false);
    const wf = chain(N);
    const maxSteps = N + 10;
    // Tracing off exactly as `weft run` has it: settings from an environment without OTEL_*.
    const off = tracingSettings(undefined, {});
    if (off.enabled || startTracing(off)) throw new Error("tracing should be off without OTEL_*");
    const tracing = startTracing(
      tracingSettings(undefined, {
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf",
      }),
    )!;
    const runs = {
      none: () => none(wf, { maxSteps }),
      off: () => shipped(wf, { maxSteps }),
      on: () =>
        shipped(wf, {
          maxSteps,
          observer: tracing.observer("cli"),
          services: tracedServices(tracing.tracer, {}, false),
        }),
    };
    // Warm-up: the JIT settles on every path before anything counts.
    for (const f of Object.values(runs)) for (let i = 0; i < 5; i++) await f();
    const m = { none: [] as number[], off: [] as number[], on: [] as number[], offBesideOn: [] as number[] };
    // First none against off alone: the exporter's background work (batches, sockets, garbage) stays out of it.
    for (let r = 0; r < ROUNDS; r++) {
      // Alternate which goes first, so neither always runs right after the other.
      const order = r % 2 === 0 ? (["none", "off"] as const) : (["off", "none"] as const);
      for (const k of order) m[k].push(await perNode(runs[k]));
    }
    // Then on against off, exported batch by batch.
    for (let r = 0; r < Math.max(3, Math.ceil(ROUNDS / 3)); r++) {
      m.offBesideOn.push(await perNode(runs.off));
      m.on.push(await perNode(runs.on));
      await tracing.flush();
    }
    await tracing.shutdown();
    const none_ = median(m.none);
    const off_ = median(m.off);
    const on_ = median(m.on);
    const offBesideOn = median(m.offBesideOn);
    const ratio = off_ / none_;
    console.log(`chain of ${N} template nodes, ${ROUNDS} rounds × ${REPS} runs, ${CLOCK} time, medians per node:`);
    console.log(`  no tracing code  ${none_.toFixed(2)} µs/node`);
    console.log(
      `  tracing off      ${off_.toFixed(2)} µs/node   off/none = ${ratio.toFixed(4)} (${((ratio - 1) * 100).toFixed(2)}%)`,
    );
    console.log(
      `  tracing on       ${on_.toFixed(2)} µs/node   on/off = ${(on_ / offBesideOn).toFixed(2)} (off beside it ${offBesideOn.toFixed(2)}); tracing costs ${(on_ - offBesideOn).toFixed(2)} µs per node`,
    );
    console.log(`  exported ${(receiver.bytes() / 1024).toFixed(0)} KiB of OTLP protobuf`);
    // Paired per round, so a load change during the bench moves both alike; and the least disturbed round of
    // each (its minimum), which other processes on a shared machine can only make slower.
    const paired = median(m.off.map((o, k) => o / m.none[k]!));
    const best = Math.min(...m.off) / Math.min(...m.none);
    console.log(`  paired off/none median ${paired.toFixed(4)}; best-round off/none ${best.toFixed(4)}`);
    console.log(
      `  within 1%: ${Math.abs(best - 1) <= 0.01 ? "yes" : "NO"} (best rounds), ${Math.abs(paired - 1) <= 0.01 ? "yes" : "NO"} (paired medians)`,
    );
  } finally {
    await receiver.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
