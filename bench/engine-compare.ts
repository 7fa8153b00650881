// Before/after of the engine in one process: `npx tsx bench/engine-compare.ts BASELINE_CHECKOUT` loads the
// engine of another checkout (e.g. `git archive main | tar -x -C /tmp/base`, node_modules linked) beside
// this one and alternates them, round by round, on the same workflows. Prints medians and ratios
// (this checkout / baseline); < 1 means this checkout is faster.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { buildWorkflow, tpl } from "../test/support/build.js";

const baseDir = process.argv[2];
if (!baseDir || !existsSync(join(baseDir, "src/engine/run.ts"))) {
  process.stderr.write(
    "usage: npx tsx bench/engine-compare.ts BASELINE_CHECKOUT (a directory with src/engine/run.ts)\n",
  );
  process.exit(2);
}
const ROUNDS = Number(process.env.ROUNDS ?? 7);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

interface Engine {
  name: string;
  run: (wf: unknown, o: Record<string, unknown>) => Promise<{ status: string }>;
  /** A durable SQLite run store in `path`, whichever store API the checkout has. */
  sqlite: (path: string) => Promise<{ store: unknown; close: () => Promise<void> | void }>;
}

async function load(name: string, root: string): Promise<Engine> {
  const mod = (p: string) => import(pathToFileURL(join(root, p)).href);
  const { runWorkflow } = await mod("src/engine/run.ts");
  const sqlite = existsSync(join(root, "src/store/open.ts"))
    ? async (path: string) => {
        const s = await (await mod("src/store/open.ts")).openStores(path);
        return { store: s.runs, close: () => s.close() };
      }
    : async (path: string) => {
        const store = new (await mod("src/store/sqlite.ts")).SqliteRunStore(path);
        return { store, close: () => store.close() };
      };
  // The wide DAG's sleep node: registered globally by older checkouts, passed as `nodeTypes` to newer ones.
  const testNodes = await mod("test/support/test-nodes.ts");
  testNodes.registerSleepNode?.();
  const nodeTypes = testNodes.withSleepNode;
  return { name, run: (wf, o) => runWorkflow(wf, nodeTypes ? { ...o, nodeTypes } : o), sqlite };
}

function chain(n: number) {
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

/** `width` parallel chains of `depth` 40 ms sleeps: the critical path is depth × 40 ms. */
function wide(width: number, depth: number) {
  const nodes: Array<Record<string, unknown> & { id: string; type: string }> = [
    { id: "start", type: "start", variables: [] },
  ];
  const edges: Array<[string, string]> = [];
  for (let w = 0; w < width; w++) {
    for (let d = 0; d < depth; d++) {
      nodes.push({ id: `n${w}_${d}`, type: "test-sleep", ms: 40 });
      edges.push([d === 0 ? "start" : `n${w}_${d - 1}`, `n${w}_${d}`]);
    }
    edges.push([`n${w}_${depth - 1}`, "end"]);
  }
  nodes.push({ id: "end", type: "end", outputs: [] });
  return buildWorkflow({ nodes, edges });
}

const small = buildWorkflow({
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

async function timed(f: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await f();
  return performance.now() - t0;
}

const cases: Array<{ name: string; unit: string; per: number; run: (e: Engine, dir: string) => Promise<number> }> = [
  {
    name: "1000-node chain, memory store",
    unit: "µs/node",
    per: 1002 / 1000,
    run: (e) => timed(() => e.run(chain(1000), { maxSteps: 2000 })),
  },
  {
    name: "200-node chain, SQLite synchronous=FULL",
    unit: "µs/node",
    per: 202 / 1000,
    run: async (e, dir) => {
      const s = await e.sqlite(join(dir, `${e.name}-${Math.random().toString(36).slice(2)}.db`));
      try {
        return await timed(() => e.run(chain(200), { maxSteps: 500, store: s.store }));
      } finally {
        await s.close();
      }
    },
  },
  {
    name: "wide DAG 16×5 of 40 ms sleeps, default concurrency",
    unit: "× critical path",
    per: 200,
    run: (e) => timed(() => e.run(wide(16, 5), { maxSteps: 500 })),
  },
  {
    name: "1000 concurrent small runs",
    unit: "ms",
    per: 1,
    run: (e) =>
      timed(() => Promise.all(Array.from({ length: 1000 }, (_, i) => e.run(small, { inputs: { x: String(i) } })))),
  },
];

const engines = [await load("baseline", resolve(baseDir)), await load("this", resolve("."))];
const dir = mkdtempSync(join(tmpdir(), "weft-compare-"));
try {
  for (const c of cases) {
    const times = new Map<string, number[]>(engines.map((e) => [e.name, []]));
    for (const e of engines) await c.run(e, dir); // warm-up
    for (let r = 0; r < ROUNDS; r++) {
      // Alternate which goes first, so drift in the machine's load hits both alike.
      for (const e of r % 2 ? [...engines].reverse() : engines) times.get(e.name)!.push((await c.run(e, dir)) / c.per);
    }
    const [b, t] = engines.map((e) => median(times.get(e.name)!));
    console.log(
      `${c.name}: baseline ${b!.toFixed(2)} ${c.unit}, this ${t!.toFixed(2)} ${c.unit}, ratio ${(t! / b!).toFixed(2)}`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
