/**
 * Paper-mode f1_chain: the exact maximum over every gold order (dynamic programming over the gold order's
 * ideals) against the baseline it replaced (LCS over the pred-guided order plus 19 seeded sample orders), in
 * the same run.
 * Run: npx tsx bench/worf-chain.ts [repeats=5]
 * Part 1 uses the 368 staged WorfBench reference vectors (real gold graphs and their stored similarity
 * matrices); part 2 random wide DAGs, where the number of orders explodes. Prints median time per pair of
 * both methods, their ratio, how often the exact method scores higher, and how often it hits its budget.
 */
import { performance } from "node:perf_hooks";
import { chainLcsForOrder, maxChainLcs } from "../src/eval/metrics/chain-lcs.js";
import { guidedTopologicalOrder, mulberry32, sampleTopologicalOrders } from "../src/eval/metrics/topo.js";
import { readCorpusJson } from "../test/eval/corpus.js";

const repeats = Number(process.argv[2] ?? 5);
const BUDGET = 2_000_000;

interface Pair {
  goldCount: number;
  goldEdges: Array<[number, number]>;
  goldNodes: number[];
  predNodes: number[];
  compat: (p: number, g: number) => boolean;
}

function baseline(p: Pair): number {
  const priority = new Array<number>(p.goldCount).fill(Number.POSITIVE_INFINITY);
  // The guided order of the old method followed matched positions; approximate with first compatible.
  for (const [i, pi] of p.predNodes.entries()) {
    const g = p.goldNodes.find((x) => p.compat(pi, x) && priority[x] === Number.POSITIVE_INFINITY);
    if (g !== undefined) priority[g] = i;
  }
  const orders = [
    guidedTopologicalOrder(p.goldCount, p.goldEdges, priority),
    ...sampleTopologicalOrders(p.goldCount, p.goldEdges, 19, 0).orders,
  ];
  const keep = new Set(p.goldNodes);
  let best = 0;
  for (const o of orders)
    best = Math.max(
      best,
      chainLcsForOrder(
        p.predNodes,
        o.filter((v) => keep.has(v)),
        p.compat,
      ).correct,
    );
  return best;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;

function run(label: string, pairs: Pair[]): void {
  const tExact: number[] = [];
  const tBase: number[] = [];
  let higher = 0;
  let lower = 0;
  let hit = 0;
  let maxIdeals = 0;
  for (const p of pairs) {
    let exact: ReturnType<typeof maxChainLcs>;
    let base = 0;
    const a: number[] = [];
    const b: number[] = [];
    for (let r = 0; r < repeats; r++) {
      let t = performance.now();
      exact = maxChainLcs(p, BUDGET);
      a.push(performance.now() - t);
      t = performance.now();
      base = baseline(p);
      b.push(performance.now() - t);
    }
    tExact.push(median(a));
    tBase.push(median(b));
    if (!exact!) hit++;
    else {
      maxIdeals = Math.max(maxIdeals, exact.ideals);
      if (exact.correct > base) higher++;
      if (exact.correct < base) lower++;
    }
  }
  const me = median(tExact);
  const mb = median(tBase);
  console.log(
    `${label.padEnd(34)} pairs ${String(pairs.length).padStart(4)}  exact median ${me.toFixed(3)} ms  baseline ${mb.toFixed(3)} ms  ratio ${(me / mb).toFixed(2)}  worst exact ${Math.max(...tExact).toFixed(2)} ms  exact > baseline ${higher}  exact < baseline ${lower}  budget hit ${hit}  max ideals ${maxIdeals}`,
  );
}

interface Case {
  gold_graph: { nodes: string[]; edges: Array<[number, number]> };
  pred_graph: { nodes: string[] } | [];
  sim_matrix_full?: number[][];
}
const cases = readCorpusJson<{ cases: Case[] }>("worfbench/worfeval_reference_vectors.json").cases.filter(
  (c) => c.sim_matrix_full && !Array.isArray(c.pred_graph),
);
const sentinel = (t: string) => t === "START" || t === "END";
const real: Pair[] = cases.map((c) => {
  const pred = (c.pred_graph as { nodes: string[] }).nodes;
  const sim = c.sim_matrix_full!;
  return {
    goldCount: c.gold_graph.nodes.length,
    goldEdges: c.gold_graph.edges.filter(([a, b]) => a !== b && b < c.gold_graph.nodes.length),
    goldNodes: c.gold_graph.nodes.flatMap((t, i) => (sentinel(t) ? [] : [i])),
    predNodes: pred.flatMap((t, i) => (sentinel(t) ? [] : [i])),
    compat: (p, g) => Math.max(0, sim[p]![g]!) >= 0.6,
  };
});
console.log(`f1_chain exact vs sampled baseline, ${repeats} repeats per pair (median kept), Node ${process.version}`);
run("WorfBench reference vectors", real);

const rnd = mulberry32(11);
for (const [n, width] of [
  [10, 3],
  [14, 5],
  [18, 8],
  [22, 12],
] as const) {
  const pairs: Pair[] = [];
  for (let k = 0; k < 40; k++) {
    // `width` parallel chains between START (0) and END (n+1): up to n!/(chain lengths)! orders.
    const edges: Array<[number, number]> = [];
    for (let i = 1; i <= n; i++) {
      const chain = i % width;
      const prev = i - width;
      edges.push(prev >= 1 && prev % width === chain ? [prev, i] : [0, i]);
    }
    for (let i = 1; i <= n; i++) if (!edges.some(([a]) => a === i)) edges.push([i, n + 1]);
    const labels = Array.from({ length: n + 2 }, () => Math.floor(rnd() * (n / 2)));
    const predLen = n - Math.floor(rnd() * 3);
    const predLabels = Array.from({ length: predLen }, () => Math.floor(rnd() * (n / 2)));
    pairs.push({
      goldCount: n + 2,
      goldEdges: edges,
      goldNodes: Array.from({ length: n }, (_, i) => i + 1),
      predNodes: Array.from({ length: predLen }, (_, i) => i),
      compat: (p, g) => predLabels[p] === labels[g],
    });
  }
  run(`random ${n} nodes in ${width} parallel chains`, pairs);
}
