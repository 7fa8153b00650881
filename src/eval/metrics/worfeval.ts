/**
 * WorfEval (WorfBench, arXiv 2410.07869): f1_chain and f1_graph between a predicted and a gold workflow graph.
 *
 * mode "upstream" — bug-for-bug with the public evaluator (zjunlp/WorfBench@38a6455), so numbers compare
 *   with published ones: strict sim > β, networkx-order max-weight matching ("nx-blossom"), gold graphs with
 *   ≥ 10 nodes (incl. START/END) not enumerated (Q1), LIS baseline 1 (Q2), f1_graph = largest connected
 *   component over index-literal common edges (Q3), pred listing order for the chain (Q4), first 20
 *   networkx topological orders (Q5). Where upstream crashes (empty pred chain, zero graph matches) we
 *   return 0 and add a note (Q9).
 * mode "paper" — the corrected definitions: sim ≥ β;
 *   f1_chain = longest common subsequence of the pred listing and a gold topological order, nodes equal when
 *   their similarity passes β, maximised over every topological order (exactly, by dynamic programming over
 *   the gold order's ideals: chain-lcs.ts; past `chainMaxStates` a lower bound from the pred-guided order —
 *   built from one max-weight matching whose ties, e.g. duplicate texts, break towards similar list
 *   positions — plus a seeded sample, flagged `chain.exact: false`); f1_graph = k/|P|, k/|G|
 *   with k the size of the exact maximum common induced subgraph (see mcis.ts for the search bound). The
 *   MCIS is not required to be connected by default, so an identical copy of a graph with an isolated node
 *   scores 1.0 (upstream's LCC would not); `mcis.connected: true` asks for the largest connected one.
 * START/END: chain mode drops nodes whose text is exactly "START"/"END" on both sides (they carry no order
 *   information); graph mode scores the graphs as given (WorfBench text always has them, so denominators
 *   match upstream).
 * Empty sides (paper mode): both empty → 1, one empty → 0.
 */

import { type ChainLcsInput, chainLcsForOrder, maxChainLcs } from "./chain-lcs.js";
import { MetricCodes, MetricInputError } from "./errors.js";
import { type MatcherName, matchNodes } from "./matching.js";
import { DEFAULT_MCIS_MAX_STEPS, maximumCommonInducedSubgraph } from "./mcis.js";
import { assertMatrixShape, type Similarity, type SimMatrix, similarityMatrix, tokenCharCosine } from "./similarity.js";
import { guidedTopologicalOrder, sampleTopologicalOrders, topologicalOrdersNx } from "./topo.js";
import { assertEdgesInRange, cleanEdges, END, START, toWorfGraph, type WorfGraph } from "./worf-graph.js";

export type WorfMode = "upstream" | "paper";

export interface WorfOptions {
  mode?: WorfMode;
  /** Default: token_char3_cosine_v1 (offline). Use bowCosineV1 to reproduce the staged reference vectors. */
  similarity?: Similarity;
  /** β, default 0.6. */
  threshold?: number;
  /** Default: false (>) in upstream mode, true (≥) in paper mode. */
  inclusive?: boolean;
  /** Default: "nx-blossom" in upstream mode, "hungarian" in paper mode. */
  matcher?: MatcherName;
  /** Gold topological orders tried for f1_chain, default 20. */
  maxOrders?: number;
  /** Seed for sampling orders when the exact f1_chain search is over budget (paper mode), default 0. */
  seed?: number;
  /**
   * Paper mode: budget of the exact f1_chain search, in (gold ideals × (pred nodes + 1)) states, default
   * 2,000,000. Past it, sampled orders give a lower bound (`chain.exact: false`).
   */
  chainMaxStates?: number;
  /** Paper-mode MCIS: require a weakly connected common subgraph (default false) and the search budget. */
  mcis?: { connected?: boolean; maxSteps?: number };
}

export interface PRF {
  precision: number;
  recall: number;
  f1: number;
}

export interface ChainScore extends PRF {
  /** Matched nodes in the best order's increasing subsequence (upstream: LIS with baseline 1). */
  correct: number;
  /** Gold orders tried, as gold node indices (upstream ≥ 10 nodes: the raw list incl. START/END). */
  ordersUsed: number[][];
  /** Index into ordersUsed of the best order, -1 if none scored. */
  bestOrder: number;
  ordersSampled: boolean;
  /**
   * Paper mode: true when the score is the maximum over every gold topological order; false when the
   * search budget was exceeded and sampled orders give a lower bound. Upstream mode: always true (its
   * definition is the orders it tries).
   */
  exact: boolean;
  /** Paper mode: the (pred, gold) node pairs of the best common subsequence. */
  alignment?: Array<[number, number]>;
}

export interface GraphScore extends PRF {
  algorithm: "upstream-index-lcc" | "mcis-connected" | "mcis";
  /** pred node index → gold node index (-1 unmatched): the node matching (upstream) or the MCIS map (paper). */
  mapping: number[];
  /** Size of the common structure on the pred side (upstream: LCC on pred side). */
  predCommon: number;
  goldCommon: number;
  /** false when the MCIS search hit its step budget: the score is then a lower bound. */
  exact: boolean;
  upperBound?: number;
  steps?: number;
}

export interface WorfPairScore {
  mode: WorfMode;
  similarity: string;
  matcher: MatcherName;
  threshold: number;
  inclusive: boolean;
  parseable: boolean;
  chain: ChainScore;
  graph: GraphScore;
  /** Divergences from upstream behaviour and other facts worth logging. */
  notes: string[];
}

interface Resolved {
  mode: WorfMode;
  simName: string;
  threshold: number;
  inclusive: boolean;
  matcher: MatcherName;
  maxOrders: number;
  seed: number;
  chainMaxStates: number;
  connected: boolean;
  maxSteps: number;
}

/** The settings a score reports beside its numbers, so two scores say whether they are comparable. */
function reportedSettings(
  r: Resolved,
): Pick<WorfPairScore, "mode" | "similarity" | "matcher" | "threshold" | "inclusive"> {
  return { mode: r.mode, similarity: r.simName, matcher: r.matcher, threshold: r.threshold, inclusive: r.inclusive };
}

function resolve(opts: WorfOptions, simName: string): Resolved {
  const mode = opts.mode ?? "paper";
  if (mode !== "upstream" && mode !== "paper") {
    throw new MetricInputError(MetricCodes.invalidArgument, `unknown WorfEval mode "${String(mode)}"`, {
      field: "mode",
    });
  }
  const threshold = opts.threshold ?? 0.6;
  if (!Number.isFinite(threshold) || threshold < 0) {
    throw new MetricInputError(MetricCodes.invalidArgument, "threshold must be a finite number ≥ 0", {
      field: "threshold",
    });
  }
  const maxOrders = opts.maxOrders ?? 20;
  if (!Number.isInteger(maxOrders) || maxOrders < 1) {
    throw new MetricInputError(MetricCodes.invalidArgument, "maxOrders must be an integer ≥ 1", { field: "maxOrders" });
  }
  return {
    mode,
    simName,
    threshold,
    inclusive: opts.inclusive ?? mode === "paper",
    matcher: opts.matcher ?? (mode === "upstream" ? "nx-blossom" : "hungarian"),
    maxOrders,
    seed: opts.seed ?? 0,
    chainMaxStates: opts.chainMaxStates ?? 2_000_000,
    connected: opts.mcis?.connected ?? false,
    maxSteps: opts.mcis?.maxSteps ?? DEFAULT_MCIS_MAX_STEPS,
  };
}

const f1Of = (p: number, r: number) => (p + r === 0 ? 0 : (2 * p * r) / (p + r));
const zeroChain = (): ChainScore => ({
  precision: 0,
  recall: 0,
  f1: 0,
  correct: 0,
  ordersUsed: [],
  bestOrder: -1,
  ordersSampled: false,
  exact: true,
});

/**
 * Scores one pair given the similarity matrix over the full node lists (rows = pred.nodes,
 * cols = gold.nodes, raw — clipping at 0 happens here). Pure and synchronous.
 */
export function scoreWorfPair(
  pred: WorfGraph,
  gold: WorfGraph,
  sim: SimMatrix,
  opts: WorfOptions & { similarityName?: string } = {},
): WorfPairScore {
  const r = resolve(opts, opts.similarityName ?? opts.similarity?.name ?? "precomputed");
  assertMatrixShape(sim, pred.nodes.length, gold.nodes.length, r.simName);
  assertEdgesInRange(gold, "gold");
  const notes: string[] = [];
  const chain =
    r.mode === "upstream" ? upstreamChain(pred, gold, sim, r, notes) : paperChain(pred, gold, sim, r, notes);
  const graph =
    r.mode === "upstream" ? upstreamGraph(pred, gold, sim, r, notes) : paperGraph(pred, gold, sim, r, notes);
  return {
    ...reportedSettings(r),
    parseable: true,
    chain,
    graph,
    notes,
  };
}

/**
 * Evaluates a pred against a gold (structured graphs or WorfBench text). An unparseable pred scores 0
 * (`parseable: false`, as upstream counts it); an unparseable gold is an error.
 */
export async function evaluateWorf(
  pred: WorfGraph | string,
  gold: WorfGraph | string,
  opts: WorfOptions = {},
): Promise<WorfPairScore> {
  const similarity = opts.similarity ?? tokenCharCosine;
  const g = toWorfGraph(gold, "gold");
  if (!g) {
    throw new MetricInputError(
      MetricCodes.invalidGraph,
      "gold workflow text is not parseable (needs 'Node' and at least one edge)",
      {
        field: "gold",
      },
    );
  }
  const p = toWorfGraph(pred, "pred");
  if (!p) {
    const r = resolve(opts, similarity.name);
    return {
      ...reportedSettings(r),
      parseable: false,
      chain: zeroChain(),
      graph: {
        precision: 0,
        recall: 0,
        f1: 0,
        algorithm: graphAlgorithm(r),
        mapping: [],
        predCommon: 0,
        goldCommon: 0,
        exact: true,
      },
      notes: ["pred unparseable: scored 0 (upstream skips it but keeps it in the denominator)"],
    };
  }
  const sim = await similarityMatrix(similarity, p.nodes, g.nodes);
  return scoreWorfPair(p, g, sim, { ...opts, similarityName: similarity.name });
}

function graphAlgorithm(r: Resolved): GraphScore["algorithm"] {
  return r.mode === "upstream" ? "upstream-index-lcc" : r.connected ? "mcis-connected" : "mcis";
}

const isSentinel = (t: string) => t === START || t === END;

function lisUpstream(map: readonly number[]): number {
  const dp = map.map(() => 1);
  for (let i = 0; i < map.length; i++) {
    for (let j = 0; j < i; j++) {
      if (map[i]! !== -1 && map[j]! !== -1 && map[j]! < map[i]!) dp[i] = Math.max(dp[i]!, dp[j]! + 1);
    }
  }
  return Math.max(...dp);
}

/** Longest strictly increasing subsequence over matched positions only (0 when nothing matched). */
export function lisMatched(map: readonly number[]): number {
  const tails: number[] = [];
  for (const x of map) {
    if (x < 0) continue;
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (tails[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    tails[lo] = x;
  }
  return tails.length;
}

function subMatrix(sim: SimMatrix, rows: readonly number[], cols: readonly number[]): SimMatrix {
  return rows.map((i) => cols.map((j) => sim[i]![j]!));
}

function upstreamChain(pred: WorfGraph, gold: WorfGraph, sim: SimMatrix, r: Resolved, notes: string[]): ChainScore {
  const n = gold.nodes.length;
  let orders: number[][];
  if (n >= 10) {
    orders = [gold.nodes.map((_, i) => i)];
    notes.push("upstream Q1: gold has ≥ 10 nodes, single order = raw node list incl. START/END");
  } else {
    orders = [];
    // Upstream drops START/END by text, then truncates; orders never collapse, so truncating first is equal.
    for (const o of topologicalOrdersNx(n, gold.edges, r.maxOrders))
      orders.push(o.filter((i) => !isSentinel(gold.nodes[i]!)));
  }
  const predIdx = pred.nodes.flatMap((t, i) => (isSentinel(t) ? [] : [i]));
  if (predIdx.length === 0) {
    notes.push("upstream Q9: empty pred node list crashes upstream chain mode; scored 0");
    return { ...zeroChain(), ordersUsed: orders };
  }
  let best: ChainScore = { ...zeroChain(), ordersUsed: orders };
  for (const [k, order] of orders.entries()) {
    const map = matchNodes(subMatrix(sim, predIdx, order), {
      threshold: r.threshold,
      inclusive: r.inclusive,
      matcher: r.matcher,
    });
    const correct = lisUpstream(map);
    const p = correct / predIdx.length;
    const rc = order.length === 0 ? 0 : correct / order.length;
    const f = f1Of(p, rc);
    if (f > best.f1)
      best = {
        precision: p,
        recall: rc,
        f1: f,
        correct,
        ordersUsed: orders,
        bestOrder: k,
        ordersSampled: false,
        exact: true,
      };
  }
  return best;
}

function paperChain(pred: WorfGraph, gold: WorfGraph, sim: SimMatrix, r: Resolved, notes: string[]): ChainScore {
  const predIdx = pred.nodes.flatMap((t, i) => (isSentinel(t) ? [] : [i]));
  const goldIdx = gold.nodes.flatMap((t, i) => (isSentinel(t) ? [] : [i]));
  const goldEdges = cleanEdges(gold, { dropSelfLoops: false });
  const keep = (s: number) => (r.inclusive ? s >= r.threshold : s > r.threshold);
  const compat = (p: number, g: number) => keep(Math.max(0, sim[p]![g]!));
  const input = { goldCount: gold.nodes.length, goldEdges, goldNodes: goldIdx, predNodes: predIdx, compat };
  const best = maxChainLcs(input, r.chainMaxStates);
  const score = (correct: number): PRF => {
    if (predIdx.length === 0 || goldIdx.length === 0) {
      const v = predIdx.length === 0 && goldIdx.length === 0 ? 1 : 0;
      return { precision: v, recall: v, f1: v };
    }
    const p = correct / predIdx.length;
    const rc = correct / goldIdx.length;
    return { precision: p, recall: rc, f1: f1Of(p, rc) };
  };
  if (best) {
    return {
      ...score(best.correct),
      correct: best.correct,
      ordersUsed: [best.order],
      bestOrder: 0,
      ordersSampled: false,
      exact: true,
      alignment: best.alignment,
    };
  }
  return sampledPaperChain(gold, sim, r, notes, input, score);
}

/**
 * When the gold order has too many ideals for the exact search: score the pred-guided order and a seeded
 * sample of orders by LCS, and say the result is a lower bound. The guided order follows one max-weight
 * matching, with ties (duplicate texts) broken towards pairs at similar list positions.
 */
function sampledPaperChain(
  gold: WorfGraph,
  sim: SimMatrix,
  r: Resolved,
  notes: string[],
  input: ChainLcsInput & { goldEdges: Array<[number, number]>; goldNodes: number[]; predNodes: number[] },
  score: (correct: number) => PRF,
): ChainScore {
  const { goldCount: n, goldEdges, goldNodes: goldIdx, predNodes: predIdx } = input;
  const map = matchNodes(subMatrix(sim, predIdx, goldIdx), {
    threshold: r.threshold,
    inclusive: r.inclusive,
    matcher: r.matcher,
    positionalTieBreak: true,
  });
  const priority = new Array<number>(n).fill(Number.POSITIVE_INFINITY);
  for (const [pi, j] of map.entries()) if (j >= 0) priority[goldIdx[j]!] = pi;
  const guided = guidedTopologicalOrder(n, goldEdges, priority);
  const sample = sampleTopologicalOrders(n, goldEdges, r.maxOrders, r.seed);
  const key = guided.join(",");
  const full = [guided, ...sample.orders.filter((o) => o.join(",") !== key)].slice(0, r.maxOrders);
  notes.push(
    `gold order too wide for the exact f1_chain search (over ${r.chainMaxStates} states): pred-guided order + ${full.length - 1} sampled with seed ${r.seed}; f1_chain is a lower bound`,
  );
  const orders = full.map((o) => o.filter((i) => !isSentinel(gold.nodes[i]!)));
  let best: ChainScore = { ...zeroChain(), ordersUsed: orders, ordersSampled: true, exact: false };
  for (const [k, order] of orders.entries()) {
    const lcs = chainLcsForOrder(predIdx, order, input.compat);
    const s = score(lcs.correct);
    if (s.f1 > best.f1 || best.bestOrder < 0)
      best = { ...best, ...s, correct: lcs.correct, bestOrder: k, alignment: lcs.alignment };
  }
  return best;
}

function largestComponent(vertices: readonly number[], edges: ReadonlyArray<readonly [number, number]>): number {
  const parent = new Map<number, number>();
  const find = (x: number): number => {
    let y = x;
    while (parent.get(y)! !== y) y = parent.get(y)!;
    parent.set(x, y);
    return y;
  };
  for (const v of vertices) parent.set(v, v);
  for (const [a, b] of edges) {
    if (!parent.has(a) || !parent.has(b)) continue;
    const ra = find(a);
    const rb = find(b);
    if (ra !== rb) parent.set(ra, rb);
  }
  const sizes = new Map<number, number>();
  let best = 0;
  for (const v of vertices) {
    const root = find(v);
    const s = (sizes.get(root) ?? 0) + 1;
    sizes.set(root, s);
    if (s > best) best = s;
  }
  return best;
}

function upstreamGraph(pred: WorfGraph, gold: WorfGraph, sim: SimMatrix, r: Resolved, notes: string[]): GraphScore {
  const mapping = matchNodes(sim, { threshold: r.threshold, inclusive: r.inclusive, matcher: r.matcher });
  const mp = new Set<number>();
  const mg = new Set<number>();
  for (const [i, j] of mapping.entries()) {
    if (j >= 0) {
      mp.add(i);
      mg.add(j);
    }
  }
  const base = { algorithm: "upstream-index-lcc" as const, mapping, exact: true };
  if (mp.size === 0) {
    notes.push("upstream Q9: no node matched (upstream crashes in graph mode); scored 0");
    return { ...base, precision: 0, recall: 0, f1: 0, predCommon: 0, goldCommon: 0 };
  }
  // Q3: common edges compared as literal index pairs, without mapping pred indices through the matching.
  const eg = new Set(gold.edges.filter(([a, b]) => mg.has(a) && mg.has(b)).map(([a, b]) => `${a},${b}`));
  const common: Array<[number, number]> = [];
  const seen = new Set<string>();
  for (const [a, b] of pred.edges) {
    const k = `${a},${b}`;
    if (mp.has(a) && mp.has(b) && eg.has(k) && !seen.has(k)) {
      seen.add(k);
      common.push([a, b]);
    }
  }
  const lp = largestComponent([...mp], common);
  const lg = largestComponent([...mg], common);
  const p = lp / pred.nodes.length;
  const rc = lg / gold.nodes.length;
  return { ...base, precision: p, recall: rc, f1: f1Of(p, rc), predCommon: lp, goldCommon: lg };
}

function paperGraph(pred: WorfGraph, gold: WorfGraph, sim: SimMatrix, r: Resolved, notes: string[]): GraphScore {
  const algorithm = graphAlgorithm(r);
  const np = pred.nodes.length;
  const ng = gold.nodes.length;
  if (np === 0 || ng === 0) {
    const v = np === 0 && ng === 0 ? 1 : 0;
    return {
      precision: v,
      recall: v,
      f1: v,
      algorithm,
      mapping: new Array(np).fill(-1),
      predCommon: 0,
      goldCommon: 0,
      exact: true,
    };
  }
  const predEdges = cleanEdges(pred, { dropSelfLoops: true });
  if (predEdges.length !== pred.edges.filter(([a, b]) => a !== b).length) {
    const out = pred.edges.some(([a, b]) => a < 0 || b < 0 || a >= np || b >= np);
    if (out) notes.push("pred has edges outside its node range; they were ignored");
  }
  const keep = (s: number) => (r.inclusive ? s >= r.threshold : s > r.threshold);
  const compat = sim.map((row) => row.map((s) => keep(Math.max(0, s))));
  const res = maximumCommonInducedSubgraph(
    { predCount: np, predEdges, goldCount: ng, goldEdges: cleanEdges(gold, { dropSelfLoops: true }), compat },
    { connected: r.connected, maxSteps: r.maxSteps },
  );
  if (!res.exact)
    notes.push(
      `MCIS search stopped at its budget of ${r.maxSteps} steps: f1_graph is a lower bound (optimum ≤ ${res.upperBound})`,
    );
  const p = res.size / np;
  const rc = res.size / ng;
  return {
    precision: p,
    recall: rc,
    f1: f1Of(p, rc),
    algorithm,
    mapping: res.mapping,
    predCommon: res.size,
    goldCommon: res.size,
    exact: res.exact,
    upperBound: res.upperBound,
    steps: res.steps,
  };
}

export interface WorfAggregate {
  count: number;
  unparseable: number;
  chain: PRF;
  graph: PRF;
}

/**
 * Dataset average as upstream reports it: P, R and F1 are averaged separately over all gold items
 * (an unparseable pred contributes 0), so the mean F1 is not 2PR/(P+R) of the mean P and R.
 */
export function aggregateWorf(results: readonly WorfPairScore[]): WorfAggregate {
  const n = results.length;
  const mean = (f: (x: WorfPairScore) => number) => (n === 0 ? 0 : results.reduce((s, x) => s + f(x), 0) / n);
  return {
    count: n,
    unparseable: results.filter((x) => !x.parseable).length,
    chain: {
      precision: mean((x) => x.chain.precision),
      recall: mean((x) => x.chain.recall),
      f1: mean((x) => x.chain.f1),
    },
    graph: {
      precision: mean((x) => x.graph.precision),
      recall: mean((x) => x.graph.recall),
      f1: mean((x) => x.graph.f1),
    },
  };
}
