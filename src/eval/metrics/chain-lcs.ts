/**
 * Paper-mode f1_chain core: the longest common subsequence of the predicted node list and a topological
 * order of the gold DAG, maximised over *all* its topological orders, where a pred node and a gold node are
 * equal when their similarity passes the threshold.
 *
 * Why not one fixed node matching: with duplicate texts ("go to toilet" twice) or a pred node close to two
 * gold nodes, which gold node a pred node stands for depends on the order, and any fixed choice can score
 * below the LCS. Why not the first 20 orders: a DAG with parallel branches has many orders and the best one
 * is easily missed.
 *
 * Exact method: dynamic programming over the ideals (down-closed sets) of the gold partial order. State
 * (D, i): the gold nodes in D are placed, pred nodes before i are used up. From there, skip pred i, place a
 * minimal gold node g ∉ D unmatched, or place g matched to pred i when they are compatible. The number of
 * ideals is at most the number of orders (far fewer with parallel branches: 2^w for w parallel nodes versus
 * w!), so this is cheap on real graphs; `maxStates` bounds (ideals × pred length) and the caller falls back
 * to scoring sampled orders when it is exceeded.
 */
import { MetricCodes, MetricInputError } from "./errors.js";

export interface ChainLcsInput {
  /** Gold node count (vertices 0..n-1) and edges (self-loops and cycles are errors). */
  goldCount: number;
  goldEdges: ReadonlyArray<readonly [number, number]>;
  /** The gold vertices that take part (others, e.g. START/END, are dropped from every order). */
  goldNodes: readonly number[];
  /** Pred positions in listing order. */
  predNodes: readonly number[];
  compat: (pred: number, gold: number) => boolean;
}

export interface ChainLcsResult {
  correct: number;
  /** One optimal order of `goldNodes` (a topological order of the gold DAG restricted to them). */
  order: number[];
  /** Matched (pred, gold) pairs of that order, in listing order. */
  alignment: Array<[number, number]>;
  ideals: number;
}

/** For each of `goldNodes`, the positions (in goldNodes) of the members that reach it in the gold DAG. */
function precedence(input: ChainLcsInput): number[][] {
  const n = input.goldCount;
  const succ: number[][] = Array.from({ length: n }, () => []);
  const indeg = new Array<number>(n).fill(0);
  for (const [a, b] of input.goldEdges) {
    succ[a]!.push(b);
    indeg[b]!++;
  }
  const topo: number[] = [];
  const left = indeg.slice();
  for (let v = 0; v < n; v++) if (left[v] === 0) topo.push(v);
  for (let h = 0; h < topo.length; h++) for (const j of succ[topo[h]!]!) if (--left[j]! === 0) topo.push(j);
  if (topo.length !== n)
    throw new MetricInputError(MetricCodes.cyclicGraph, "graph contains a cycle; it has no topological order", {
      field: "edges",
    });
  const pos = new Map(input.goldNodes.map((g, k) => [g, k]));
  // ancestors[v] = members of goldNodes that reach v, accumulated in topological order.
  const ancestors = Array.from({ length: n }, () => new Set<number>());
  for (const v of topo) {
    const mine = new Set(ancestors[v]);
    if (pos.has(v)) mine.add(pos.get(v)!);
    for (const j of succ[v]!) for (const a of mine) ancestors[j]!.add(a);
  }
  return input.goldNodes.map((g) => [...ancestors[g]!]);
}

/** Sets of gold positions as bit masks: plain numbers up to 30 members, BigInts beyond. */
interface MaskOps<M> {
  zero: M;
  of: (positions: readonly number[]) => M;
  has: (m: M, g: number) => boolean;
  add: (m: M, g: number) => M;
  /** Every member of `need` is in `m`. */
  covers: (m: M, need: M) => boolean;
}
const NUMBER_MASKS: MaskOps<number> = {
  zero: 0,
  of: (ps) => ps.reduce((m, g) => m | (1 << g), 0),
  has: (m, g) => (m & (1 << g)) !== 0,
  add: (m, g) => m | (1 << g),
  covers: (m, need) => (need & ~m) === 0,
};
const BIGINT_MASKS: MaskOps<bigint> = {
  zero: 0n,
  of: (ps) => ps.reduce((m, g) => m | (1n << BigInt(g)), 0n),
  has: (m, g) => (m & (1n << BigInt(g))) !== 0n,
  add: (m, g) => m | (1n << BigInt(g)),
  covers: (m, need) => (need & ~m) === 0n,
};

/**
 * The ideals of the partial order, breadth first from the empty one (so every move goes to a later ideal),
 * with the moves out of each: [gold position added, index of the next ideal]. Undefined past `maxIdeals`.
 */
function ideals<M>(
  before: readonly number[][],
  ops: MaskOps<M>,
  maxIdeals: number,
): Array<Array<[number, number]>> | undefined {
  const need = before.map((ps) => ops.of(ps));
  const index = new Map<M, number>([[ops.zero, 0]]);
  const sets: M[] = [ops.zero];
  const moves: Array<Array<[number, number]>> = [];
  for (let u = 0; u < sets.length; u++) {
    const d = sets[u]!;
    const out: Array<[number, number]> = [];
    for (let g = 0; g < need.length; g++) {
      if (ops.has(d, g) || !ops.covers(d, need[g]!)) continue;
      const next = ops.add(d, g);
      let v = index.get(next);
      if (v === undefined) {
        if (sets.length >= maxIdeals) return undefined;
        v = sets.length;
        index.set(next, v);
        sets.push(next);
      }
      out.push([g, v]);
    }
    moves.push(out);
  }
  return moves;
}

/** The exact maximum, or undefined when (ideals × (pred length + 1)) would pass `maxStates`. */
export function maxChainLcs(input: ChainLcsInput, maxStates: number): ChainLcsResult | undefined {
  const k = input.goldNodes.length;
  const m = input.predNodes.length;
  const before = precedence(input);
  const maxIdeals = Math.max(1, Math.floor(maxStates / (m + 1)));
  const moves = k <= 30 ? ideals(before, NUMBER_MASKS, maxIdeals) : ideals(before, BIGINT_MASKS, maxIdeals);
  if (!moves) return undefined;
  const count = moves.length;
  const ok = input.predNodes.map((p) => input.goldNodes.map((g) => input.compat(p, g)));
  const w = m + 1;
  const f = new Int32Array(count * w);
  // Every move goes to an ideal created later, so a reverse sweep sees successors first.
  for (let u = count - 1; u >= 0; u--) {
    for (let i = m - 1; i >= 0; i--) {
      let best = f[u * w + i + 1]!;
      for (const [g, v] of moves[u]!) {
        const unmatched = f[v * w + i]!;
        if (unmatched > best) best = unmatched;
        if (ok[i]![g]) {
          const matched = 1 + f[v * w + i + 1]!;
          if (matched > best) best = matched;
        }
      }
      f[u * w + i] = best;
    }
  }
  const order: number[] = [];
  const alignment: Array<[number, number]> = [];
  // Walk one optimal path: prefer a match, then skipping the pred node, then placing a gold node unmatched.
  for (let u = 0, i = 0; moves[u]!.length > 0; ) {
    const here = f[u * w + i]!;
    const match = i < m ? moves[u]!.find(([g, v]) => ok[i]![g] && 1 + f[v * w + i + 1]! === here) : undefined;
    if (match) {
      order.push(input.goldNodes[match[0]]!);
      alignment.push([input.predNodes[i]!, input.goldNodes[match[0]]!]);
      u = match[1];
      i++;
    } else if (i < m && f[u * w + i + 1]! === here) i++;
    else {
      const [g, v] = moves[u]!.find(([, v]) => f[v * w + i]! === here)!;
      order.push(input.goldNodes[g]!);
      u = v;
    }
  }
  return { correct: f[0]!, order, alignment, ideals: count };
}

/** LCS of the pred list and one given gold order under `compat`, with its alignment. */
export function chainLcsForOrder(
  predNodes: readonly number[],
  order: readonly number[],
  compat: (pred: number, gold: number) => boolean,
): { correct: number; alignment: Array<[number, number]> } {
  const m = predNodes.length;
  const k = order.length;
  const w = k + 1;
  const L = new Int32Array((m + 1) * w);
  for (let i = m - 1; i >= 0; i--) {
    for (let j = k - 1; j >= 0; j--) {
      L[i * w + j] = compat(predNodes[i]!, order[j]!)
        ? 1 + L[(i + 1) * w + j + 1]!
        : Math.max(L[(i + 1) * w + j]!, L[i * w + j + 1]!);
    }
  }
  const alignment: Array<[number, number]> = [];
  for (let i = 0, j = 0; i < m && j < k; ) {
    if (compat(predNodes[i]!, order[j]!) && L[i * w + j] === 1 + L[(i + 1) * w + j + 1]!) {
      alignment.push([predNodes[i]!, order[j]!]);
      i++;
      j++;
    } else if (L[(i + 1) * w + j]! >= L[i * w + j + 1]!) i++;
    else j++;
  }
  return { correct: L[0]!, alignment };
}
