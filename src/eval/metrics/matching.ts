/**
 * One-to-one maximum-weight node matching between pred rows and gold columns of a similarity matrix.
 *
 * Two exact matchers, both maximising total weight (never greedy):
 * - `"nx-blossom"`: the primal-dual weighted-matching method (Edmonds / Galil) in the operation order
 *   networkx's `max_weight_matching(maxcardinality=False)` uses — vertex numbering by first appearance in
 *   the row-major edge list, LIFO queue, least-slack edge tracking, strict `<` when choosing delta. On a
 *   bipartite graph no odd cycle exists, so no blossom is ever formed; this port therefore has no blossom
 *   bookkeeping, only the parts that run. It reproduces networkx's choice among equal-weight optima
 *   (WorfBench upstream parity on tied cases). Written from the algorithm's description, not copied.
 * - `"hungarian"`: Kuhn–Munkres with potentials, O(n²m). Same optimum total weight; on exact ties it
 *   may pick a different (equally heavy) matching than networkx.
 */
import { MetricCodes, MetricInputError } from "./errors.js";
import type { SimMatrix } from "./similarity.js";

export type MatcherName = "nx-blossom" | "hungarian";

export interface MatchOptions {
  /** Similarity threshold β. */
  threshold: number;
  /** `false` = keep pairs with sim > β (upstream); `true` = sim ≥ β. */
  inclusive: boolean;
  matcher: MatcherName;
  /**
   * Among (near-)equal-weight optima prefer pairs at similar relative positions, by subtracting
   * 1e-9·(i/rows − j/cols)² from each kept weight. The cost is convex, so among tied alternatives the
   * non-crossing (order-preserving) one wins: duplicate texts match in listing order instead of
   * arbitrarily. Optima that differ by more than ~1e-8 in total weight are unaffected.
   */
  positionalTieBreak?: boolean;
}

/** map[i] = matched gold column for pred row i, or -1. Similarities are clipped below at 0 first. */
export function matchNodes(sim: SimMatrix, opts: MatchOptions): number[] {
  const rows = sim.length;
  const cols = rows === 0 ? 0 : sim[0]!.length;
  const keep = (s: number) => (opts.inclusive ? s >= opts.threshold : s > opts.threshold);
  const w: number[][] = sim.map((row) => {
    if (row.length !== cols) throw new MetricInputError(MetricCodes.invalidMatrix, "ragged similarity matrix");
    return row.map((s) => {
      const c = Math.max(0, s);
      // A zero weight would be indistinguishable from "no edge"; β ≥ 0 so kept pairs are > 0 unless β = 0.
      return keep(c) && c > 0 ? c : 0;
    });
  });
  if (opts.positionalTieBreak) {
    for (let i = 0; i < rows; i++) {
      for (let j = 0; j < cols; j++) {
        const x = w[i]![j]!;
        if (x > 1e-6) w[i]![j] = x - 1e-9 * (i / rows - j / cols) ** 2;
      }
    }
  }
  return opts.matcher === "hungarian" ? hungarianMatch(w, rows, cols) : nxBlossomBipartite(w, rows, cols);
}

/** Total weight of a matching (for tests and diagnostics). */
export function matchingWeight(sim: SimMatrix, map: readonly number[]): number {
  let s = 0;
  for (const [i, j] of map.entries()) if (j >= 0) s += sim[i]![j]!;
  return s;
}

function nxBlossomBipartite(w: number[][], rows: number, cols: number): number[] {
  // Vertex numbering = networkx node insertion order when edges (i, "j") are added row-major.
  const vid = new Map<string, number>();
  const side: Array<{ pred: boolean; idx: number }> = [];
  const adj: number[][] = [];
  const wt = new Map<number, number>();
  const vertex = (key: string, pred: boolean, idx: number) => {
    let v = vid.get(key);
    if (v === undefined) {
      v = side.length;
      vid.set(key, v);
      side.push({ pred, idx });
      adj.push([]);
    }
    return v;
  };
  let maxweight = 0;
  const N_KEY = rows + cols + 1;
  for (let i = 0; i < rows; i++) {
    for (let j = 0; j < cols; j++) {
      const x = w[i]![j]!;
      if (x <= 0) continue;
      const a = vertex(`p${i}`, true, i);
      const b = vertex(`g${j}`, false, j);
      adj[a]!.push(b);
      adj[b]!.push(a);
      wt.set(a * N_KEY + b, x);
      wt.set(b * N_KEY + a, x);
      if (x > maxweight) maxweight = x;
    }
  }
  const n = side.length;
  const result = new Array<number>(rows).fill(-1);
  if (n === 0) return result;

  const weight = (a: number, b: number) => wt.get(a * N_KEY + b)!;
  const mate = new Array<number>(n).fill(-1);
  // dual[v] = 2·u(v), starting at maxweight as in the reference formulation.
  const dual = new Array<number>(n).fill(maxweight);
  const slack = (a: number, b: number) => dual[a]! + dual[b]! - 2 * weight(a, b);

  for (;;) {
    // One stage: grow alternating trees from every free vertex until an augmenting path appears.
    const label = new Array<number>(n).fill(0); // 0 free, 1 S, 2 T
    const labelEdge: Array<[number, number] | null> = new Array(n).fill(null);
    const bestEdge: Array<[number, number] | null> = new Array(n).fill(null);
    const allowed = new Set<number>();
    const queue: number[] = [];
    const assignLabel = (x: number, t: 1 | 2, from: number) => {
      label[x] = t;
      labelEdge[x] = from >= 0 ? [from, x] : null;
      bestEdge[x] = null;
      if (t === 1) queue.push(x);
      else assignLabel(mate[x]!, 1, x);
    };
    const augment = (v: number, x: number) => {
      for (let [s, j] of [
        [v, x],
        [x, v],
      ] as Array<[number, number]>) {
        for (;;) {
          mate[s] = j;
          const le = labelEdge[s] ?? null;
          if (le === null) break;
          const t = le[0];
          const lt = labelEdge[t]!;
          s = lt[0];
          j = lt[1];
          mate[j] = s;
        }
      }
    };
    for (let v = 0; v < n; v++) if (mate[v] === -1 && label[v] === 0) assignLabel(v, 1, -1);

    let augmented = false;
    for (;;) {
      while (queue.length > 0 && !augmented) {
        const v = queue.pop()!;
        for (const x of adj[v]!) {
          const key = v * N_KEY + x;
          let ks = 0;
          if (!allowed.has(key)) {
            ks = slack(v, x);
            if (ks <= 0) {
              allowed.add(key);
              allowed.add(x * N_KEY + v);
            }
          }
          if (allowed.has(key)) {
            if (label[x] === 0) assignLabel(x, 2, v);
            else if (label[x] === 1) {
              // S–S edge: in a bipartite graph the two S vertices lie in different trees
              // (same-tree S vertices sit on the root's side), so this is always an augmenting path.
              augment(v, x);
              augmented = true;
              break;
            }
          } else if (label[x] === 1) {
            const be = bestEdge[v] ?? null;
            if (be === null || ks < slack(be[0], be[1])) bestEdge[v] = [v, x];
          } else if (label[x] === 0) {
            const be = bestEdge[x] ?? null;
            if (be === null || ks < slack(be[0], be[1])) bestEdge[x] = [v, x];
          }
        }
      }
      if (augmented) break;

      // No augmenting path under the current duals: pump slack.
      let deltaType = 1;
      let delta = Math.min(...dual);
      let deltaEdge: [number, number] | null = null;
      for (let v = 0; v < n; v++) {
        const be = bestEdge[v] ?? null;
        if (label[v] === 0 && be !== null) {
          const d = slack(be[0], be[1]);
          if (d < delta) {
            delta = d;
            deltaType = 2;
            deltaEdge = be;
          }
        }
      }
      for (let v = 0; v < n; v++) {
        const be = bestEdge[v] ?? null;
        if (label[v] === 1 && be !== null) {
          const d = slack(be[0], be[1]) / 2;
          if (d < delta) {
            delta = d;
            deltaType = 3;
            deltaEdge = be;
          }
        }
      }
      for (let v = 0; v < n; v++) {
        if (label[v] === 1) dual[v] = dual[v]! - delta;
        else if (label[v] === 2) dual[v] = dual[v]! + delta;
      }
      if (deltaType === 1) break;
      const [a, b] = deltaEdge!;
      allowed.add(a * N_KEY + b);
      allowed.add(b * N_KEY + a);
      queue.push(a);
    }
    if (!augmented) break;
  }

  for (let v = 0; v < n; v++) {
    const s = side[v]!;
    const m = mate[v]!;
    if (s.pred && m >= 0) result[s.idx] = side[m]!.idx;
  }
  return result;
}

/** Kuhn–Munkres (shortest augmenting path with potentials) maximising Σw; pairs of weight 0 are dropped. */
function hungarianMatch(w: number[][], rows: number, cols: number): number[] {
  const result = new Array<number>(rows).fill(-1);
  if (rows === 0 || cols === 0) return result;
  const transpose = rows > cols;
  const n = transpose ? cols : rows; // n ≤ m
  const m = transpose ? rows : cols;
  const cost = (i: number, j: number) => -(transpose ? w[j]![i]! : w[i]![j]!);
  const u = new Float64Array(n + 1);
  const v = new Float64Array(m + 1);
  const p = new Int32Array(m + 1); // p[j] = row (1-based) assigned to column j
  const way = new Int32Array(m + 1);
  for (let i = 1; i <= n; i++) {
    p[0] = i;
    let j0 = 0;
    const minv = new Float64Array(m + 1).fill(Number.POSITIVE_INFINITY);
    const used = new Uint8Array(m + 1);
    do {
      used[j0] = 1;
      const i0 = p[j0]!;
      let delta = Number.POSITIVE_INFINITY;
      let j1 = 0;
      for (let j = 1; j <= m; j++) {
        if (used[j]) continue;
        const cur = cost(i0 - 1, j - 1) - u[i0]! - v[j]!;
        if (cur < minv[j]!) {
          minv[j] = cur;
          way[j] = j0;
        }
        if (minv[j]! < delta) {
          delta = minv[j]!;
          j1 = j;
        }
      }
      for (let j = 0; j <= m; j++) {
        if (used[j]) {
          u[p[j]!] = u[p[j]!]! + delta;
          v[j] = v[j]! - delta;
        } else minv[j] = minv[j]! - delta;
      }
      j0 = j1;
    } while (p[j0] !== 0);
    do {
      const j1 = way[j0]!;
      p[j0] = p[j1]!;
      j0 = j1;
    } while (j0 !== 0);
  }
  for (let j = 1; j <= m; j++) {
    const i = p[j]!;
    if (i === 0) continue;
    const [r, c] = transpose ? [j - 1, i - 1] : [i - 1, j - 1];
    if (w[r]![c]! > 0) result[r] = c;
  }
  return result;
}
