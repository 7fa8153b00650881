/**
 * Maximum common induced subgraph (MCIS) of two small directed graphs under a node-compatibility
 * relation, by exact branch and bound (McSplit-style domain refinement).
 *
 * A solution is an injective map φ from a set S of pred vertices to gold vertices with compat[u][φu]
 * for every u ∈ S and, for all u ≠ v in S, edge(u→v) ⇔ edge(φu→φv) (both directions checked, so the
 * two induced subgraphs are isomorphic as directed graphs). Self-loops are ignored. With
 * `connected: true` (default false), S must also be weakly connected — the largest *connected* common
 * structure.
 *
 * Search: pick the frontier vertex with the smallest domain; branch on each compatible gold vertex
 * (refining every other domain to gold vertices with the same edge relation), then on "u not in S".
 * Bound: |S| + size of a maximum bipartite matching between the remaining candidates and their
 * domains (with an equivalence-relation compat this equals McSplit's class bound).
 *
 * Bound on work: at most `maxSteps` search nodes (default 200 000). Beyond that the search stops and
 * returns the best solution found with `exact: false` and `upperBound` ≥ the true optimum. The bench
 * (bench/eval.ts) measures that random graphs up to 20 nodes finish well inside that budget; the budget
 * exists so that adversarial inputs (many mutually compatible nodes, dense graphs) stay bounded in time.
 */
import { MetricCodes, MetricInputError } from "./errors.js";

export interface McisInput {
  predCount: number;
  predEdges: ReadonlyArray<readonly [number, number]>;
  goldCount: number;
  goldEdges: ReadonlyArray<readonly [number, number]>;
  /** compat[u][g]: may pred u be mapped to gold g. */
  compat: ReadonlyArray<ReadonlyArray<boolean>>;
}

export interface McisOptions {
  connected?: boolean;
  maxSteps?: number;
}

export interface McisResult {
  size: number;
  /** mapping[u] = gold vertex or -1. */
  mapping: number[];
  exact: boolean;
  /** Proven upper bound on the optimum (= size when exact). */
  upperBound: number;
  steps: number;
}

export const DEFAULT_MCIS_MAX_STEPS = 200_000;

function popcount32(x: number): number {
  let v = x >>> 0;
  v -= (v >>> 1) & 0x55555555;
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

function relationMatrix(n: number, edges: ReadonlyArray<readonly [number, number]>, role: string): Uint8Array {
  // rel[a*n+b]: bit 1 = a→b, bit 2 = b→a.
  const rel = new Uint8Array(n * n);
  for (const [a, b] of edges) {
    if (!Number.isInteger(a) || !Number.isInteger(b) || a < 0 || b < 0 || a >= n || b >= n) {
      throw new MetricInputError(
        MetricCodes.invalidGraph,
        `${role}: edge (${a},${b}) is outside vertices 0..${n - 1}`,
        {
          field: `${role}.edges`,
        },
      );
    }
    if (a === b) continue;
    rel[a * n + b]! |= 1;
    rel[b * n + a]! |= 2;
  }
  return rel;
}

export function maximumCommonInducedSubgraph(input: McisInput, opts: McisOptions = {}): McisResult {
  const np = input.predCount;
  const ng = input.goldCount;
  const connected = opts.connected ?? false;
  const maxSteps = opts.maxSteps ?? DEFAULT_MCIS_MAX_STEPS;
  if (input.compat.length !== np || input.compat.some((r) => r.length !== ng)) {
    throw new MetricInputError(MetricCodes.invalidMatrix, `compat must be ${np}×${ng}`, { field: "compat" });
  }
  const relP = relationMatrix(np, input.predEdges, "pred");
  const relG = relationMatrix(ng, input.goldEdges, "gold");
  const W = Math.max(1, Math.ceil(ng / 32));

  // goldRel[(g*4 + t)*W ...] = gold vertices h ≠ g whose relation to g is t.
  const goldRel = new Uint32Array(ng * 4 * W);
  for (let g = 0; g < ng; g++) {
    for (let h = 0; h < ng; h++) {
      if (h === g) continue;
      const t = relG[h * ng + g]!;
      goldRel[(g * 4 + t) * W + (h >>> 5)]! |= 1 << (h & 31);
    }
  }
  const root = new Uint32Array(np * W);
  for (let u = 0; u < np; u++) {
    for (let g = 0; g < ng; g++) if (input.compat[u]![g]) root[u * W + (g >>> 5)]! |= 1 << (g & 31);
  }

  const assigned = new Int32Array(np).fill(-1);
  const excluded = new Uint8Array(np);
  const frontier = new Int32Array(np);
  let best = 0;
  let bestMap = new Array<number>(np).fill(-1);
  let steps = 0;
  let aborted = false;
  let openBound = 0; // max bound among subtrees cut off by the step budget

  // One domain buffer per depth (= number of assigned vertices): siblings reuse it, so no allocation per node.
  const levels: Uint32Array[] = [root];
  for (let l = 1; l <= np; l++) levels.push(new Uint32Array(np * W));
  const cands = new Int32Array(np);
  const candSize = new Int32Array(np);
  const union = new Uint32Array(W);

  // Max bipartite matching between candidate preds and gold vertices in their domains (Kuhn's algorithm).
  const goldOwner = new Int32Array(ng);
  const visited = new Uint8Array(ng);
  const matchingBound = (d: Uint32Array, count: number) => {
    goldOwner.fill(-1);
    let size = 0;
    const tryAug = (u: number): boolean => {
      for (let k = 0; k < W; k++) {
        let word = d[u * W + k]!;
        while (word !== 0) {
          const bit = word & -word;
          const g = k * 32 + (31 - Math.clz32(bit));
          word ^= bit;
          if (visited[g]) continue;
          visited[g] = 1;
          if (goldOwner[g] === -1 || tryAug(goldOwner[g]!)) {
            goldOwner[g] = u;
            return true;
          }
        }
      }
      return false;
    };
    for (let c = 0; c < count; c++) {
      visited.fill(0);
      if (tryAug(cands[c]!)) size++;
    }
    return size;
  };

  // When the candidates' domains are pairwise identical or disjoint (always so if compat is an equivalence
  // relation: refinement splits classes consistently), the matching bound is Σ_class min(|preds|, |domain|),
  // and McSplit's branching rule applies: the class with the smallest max(|preds|, |domain|), and in it the
  // pred vertex of highest degree. Returns -1 when domains overlap.
  const degree = new Int32Array(np);
  for (let a = 0; a < np; a++) for (let b = 0; b < np; b++) if (relP[a * np + b]) degree[a]!++;
  let classPick = -1;
  const classBound = (d: Uint32Array, count: number, unionSize: number): number => {
    const classes = new Map<number | string, { n: number; size: number; rep: number }>();
    let distinctSum = 0;
    for (let c = 0; c < count; c++) {
      const u = cands[c]!;
      let key: number | string;
      if (W === 1) key = d[u]!;
      else {
        key = "";
        for (let k = 0; k < W; k++) key += `${d[u * W + k]!},`;
      }
      const e = classes.get(key);
      if (e) {
        e.n++;
        if (degree[u]! > degree[e.rep]!) e.rep = u;
      } else {
        classes.set(key, { n: 1, size: candSize[c]!, rep: u });
        distinctSum += candSize[c]!;
      }
    }
    if (distinctSum !== unionSize) return -1;
    let b = 0;
    let bestCost = Number.POSITIVE_INFINITY;
    classPick = -1;
    for (const e of classes.values()) {
      b += Math.min(e.n, e.size);
      const cost = Math.max(e.n, e.size);
      if (cost < bestCost) {
        bestCost = cost;
        classPick = e.rep;
      }
    }
    return b;
  };

  const search = (level: number, size: number): void => {
    if (aborted) return;
    if (++steps > maxSteps) {
      aborted = true;
      openBound = Math.max(openBound, size + np);
      return;
    }
    const d = levels[level]!;
    let count = 0;
    let pick = -1;
    let pickSize = Number.POSITIVE_INFINITY;
    union.fill(0);
    for (let u = 0; u < np; u++) {
      if (assigned[u]! >= 0 || excluded[u]) continue;
      let s = 0;
      for (let k = 0; k < W; k++) {
        const word = d[u * W + k]!;
        s += popcount32(word);
        union[k]! |= word;
      }
      if (s === 0) continue;
      cands[count] = u;
      candSize[count++] = s;
      if ((!connected || size === 0 || frontier[u]! > 0) && s < pickSize) {
        pick = u;
        pickSize = s;
      }
    }
    if (pick < 0) return;
    let unionSize = 0;
    for (let k = 0; k < W; k++) unionSize += popcount32(union[k]!);
    if (size + Math.min(count, unionSize) <= best) return;
    let extra = classBound(d, count, unionSize);
    const extraFromClasses = extra >= 0;
    if (extra < 0) extra = matchingBound(d, count);
    const bound = size + extra;
    if (bound <= best) return;

    // Connected mode must branch on a frontier vertex, so McSplit's class choice only applies without it.
    const u = !connected && extraFromClasses && classPick >= 0 ? classPick : pick;
    const nd = levels[level + 1]!;
    for (let k = 0; k < W; k++) {
      let word = d[u * W + k]!;
      while (word !== 0) {
        const bit = word & -word;
        const g = k * 32 + (31 - Math.clz32(bit));
        word ^= bit;
        for (let w = 0; w < np; w++) {
          if (w === u || assigned[w]! >= 0 || excluded[w]) continue;
          const base = (g * 4 + relP[w * np + u]!) * W;
          for (let q = 0; q < W; q++) nd[w * W + q] = d[w * W + q]! & goldRel[base + q]!;
        }
        assigned[u] = g;
        for (let w = 0; w < np; w++) if (relP[w * np + u]) frontier[w]!++;
        if (size + 1 > best) {
          best = size + 1;
          bestMap = Array.from(assigned);
        }
        search(level + 1, size + 1);
        for (let w = 0; w < np; w++) if (relP[w * np + u]) frontier[w]!--;
        assigned[u] = -1;
        if (aborted) {
          openBound = Math.max(openBound, bound);
          return;
        }
      }
    }
    excluded[u] = 1;
    search(level, size);
    excluded[u] = 0;
    if (aborted) openBound = Math.max(openBound, bound);
  };

  search(0, 0);
  return {
    size: best,
    mapping: bestMap,
    exact: !aborted,
    upperBound: aborted ? Math.max(best, Math.min(openBound, np, ng)) : best,
    steps,
  };
}
