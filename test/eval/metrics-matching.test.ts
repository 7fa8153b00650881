/** Matchers, topological enumeration and the MCIS search, against hand examples and brute force. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { matchingWeight, matchNodes } from "../../src/eval/metrics/matching.js";
import { maximumCommonInducedSubgraph } from "../../src/eval/metrics/mcis.js";
import { guidedTopologicalOrder, sampleTopologicalOrders, topologicalOrdersNx } from "../../src/eval/metrics/topo.js";
import { readCorpusJson } from "./corpus.js";

const opts = (matcher: "nx-blossom" | "hungarian") => ({ threshold: 0.6, inclusive: false, matcher });

describe("max-weight matching", () => {
  it("is not greedy: [[0.9,0.8],[0.85,0.1]] → 0.8 + 0.85 = 1.65 beats greedy 0.9", () => {
    const sim = [
      [0.9, 0.8],
      [0.85, 0.1],
    ];
    for (const m of ["nx-blossom", "hungarian"] as const) expect(matchNodes(sim, opts(m))).toEqual([1, 0]);
  });

  it("threshold is strict for upstream (> 0.6) and inclusive on request (≥), negatives clip to 0", () => {
    expect(matchNodes([[0.6]], opts("nx-blossom"))).toEqual([-1]);
    expect(matchNodes([[0.6]], { threshold: 0.6, inclusive: true, matcher: "hungarian" })).toEqual([0]);
    expect(matchNodes([[-0.9, 0.7]], opts("hungarian"))).toEqual([1]);
    expect(matchNodes([], opts("hungarian"))).toEqual([]);
    expect(matchNodes([[], []], opts("nx-blossom"))).toEqual([-1, -1]);
  });

  it("positional tie-break matches duplicates in listing order without changing the optimum", () => {
    const dup = [
      [1, 1, 0],
      [1, 1, 0],
      [0, 0, 0.9],
    ];
    const tb = { threshold: 0.6, inclusive: false, matcher: "hungarian" as const, positionalTieBreak: true };
    expect(matchNodes(dup, tb)).toEqual([0, 1, 2]);
    const rev = [
      [0, 0, 0.9],
      [1, 1, 0],
      [1, 1, 0],
    ];
    expect(matchNodes(rev, tb)).toEqual([2, 0, 1]);
    // A real weight difference (0.95 vs 0.9) still wins over position.
    expect(matchNodes([[0.9, 0.95]], tb)).toEqual([1]);
  });

  it("rectangular matrices both ways", () => {
    const tall = [[0.7], [0.9], [0.8]];
    expect(matchNodes(tall, opts("hungarian"))).toEqual([-1, 0, -1]);
    expect(matchNodes(tall, opts("nx-blossom"))).toEqual([-1, 0, -1]);
    const wide = [[0.7, 0.9, 0.65]];
    expect(matchNodes(wide, opts("hungarian"))).toEqual([1]);
  });

  it("both matchers reach the same optimum weight on random matrices (property)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 7 }),
        fc.integer({ min: 1, max: 7 }),
        fc.array(fc.integer({ min: 0, max: 10 }), { minLength: 49, maxLength: 49 }),
        (r, c, vals) => {
          // Coarse values (k/10) create many exact ties, the hard case for tie-breaking.
          const sim = Array.from({ length: r }, (_, i) => Array.from({ length: c }, (_, j) => vals[i * 7 + j]! / 10));
          const a = matchNodes(sim, opts("nx-blossom"));
          const b = matchNodes(sim, opts("hungarian"));
          for (const m of [a, b]) {
            const used = m.filter((j) => j >= 0);
            expect(new Set(used).size).toBe(used.length); // one-to-one
            for (const [i, j] of m.entries()) if (j >= 0) expect(sim[i]![j]!).toBeGreaterThan(0.6);
          }
          expect(matchingWeight(sim, a)).toBeCloseTo(matchingWeight(sim, b), 9);
          expect(matchingWeight(sim, a)).toBeCloseTo(bruteForceBest(sim), 9);
        },
      ),
      { numRuns: 300, seed: 11 },
    );
  });

  it("Hungarian reaches upstream's optimum weight on all reference vectors (mappings may differ only on ties)", () => {
    const { cases } = readCorpusJson<{
      cases: Array<{ sim_matrix_full?: number[][]; has_exact_ties_above_threshold?: boolean }>;
    }>("worfbench/worfeval_reference_vectors.json");
    let differing = 0;
    for (const c of cases) {
      if (!c.sim_matrix_full) continue;
      const a = matchNodes(c.sim_matrix_full, opts("nx-blossom"));
      const b = matchNodes(c.sim_matrix_full, opts("hungarian"));
      expect(matchingWeight(c.sim_matrix_full, b)).toBeCloseTo(matchingWeight(c.sim_matrix_full, a), 9);
      if (a.join() !== b.join()) {
        differing++;
        expect(c.has_exact_ties_above_threshold).toBe(true);
      }
    }
    expect(differing).toBeGreaterThan(0); // ties are real: this is why nx-blossom exists
  });
});

function bruteForceBest(sim: number[][]): number {
  const r = sim.length;
  const c = sim[0]?.length ?? 0;
  const used = new Array<boolean>(c).fill(false);
  const rec = (i: number): number => {
    if (i === r) return 0;
    let best = rec(i + 1);
    for (let j = 0; j < c; j++) {
      const w = sim[i]![j]!;
      if (!used[j] && w > 0.6) {
        used[j] = true;
        best = Math.max(best, w + rec(i + 1));
        used[j] = false;
      }
    }
    return best;
  };
  return rec(0);
}

describe("topological orders", () => {
  it("networkx docs example: (1,2),(2,3),(2,4) → [1,2,4,3], [1,2,3,4]", () => {
    // vertices 0..4 with 0 isolated would change the count; use 0-based 0→1, 1→2, 1→3.
    expect([
      ...topologicalOrdersNx(4, [
        [0, 1],
        [1, 2],
        [1, 3],
      ]),
    ]).toEqual([
      [0, 1, 3, 2],
      [0, 1, 2, 3],
    ]);
  });

  it("limit, empty graph, duplicate edges, cycles", () => {
    expect([...topologicalOrdersNx(4, [], 5)]).toHaveLength(5);
    expect([...topologicalOrdersNx(4, [])]).toHaveLength(24);
    expect([...topologicalOrdersNx(0, [])]).toEqual([[]]);
    expect([
      ...topologicalOrdersNx(2, [
        [0, 1],
        [0, 1],
      ]),
    ]).toEqual([[0, 1]]);
    expect(() => [
      ...topologicalOrdersNx(2, [
        [0, 1],
        [1, 0],
      ]),
    ]).toThrow(expect.objectContaining({ code: "metric.cyclic_graph" }));
    expect(() => [...topologicalOrdersNx(1, [[0, 0]])]).toThrow(
      expect.objectContaining({ code: "metric.cyclic_graph" }),
    );
  });

  it("sampling: all orders when ≤ max, else distinct valid orders, same seed → same sample", () => {
    expect(sampleTopologicalOrders(3, [], 6, 1)).toEqual({ orders: [...topologicalOrdersNx(3, [])], sampled: false });
    const edges: Array<[number, number]> = [
      [0, 5],
      [1, 5],
    ];
    const a = sampleTopologicalOrders(6, edges, 20, 7);
    expect(a.sampled).toBe(true);
    expect(a.orders).toHaveLength(20);
    expect(sampleTopologicalOrders(6, edges, 20, 7)).toEqual(a);
    expect(sampleTopologicalOrders(6, edges, 20, 8)).not.toEqual(a);
    for (const o of a.orders) expect(o.indexOf(5)).toBeGreaterThan(Math.max(o.indexOf(0), o.indexOf(1)));
  });
});

function bruteMcis(
  np: number,
  pe: Array<[number, number]>,
  ng: number,
  ge: Array<[number, number]>,
  compat: boolean[][],
  connected: boolean,
): number {
  const rel = (n: number, es: Array<[number, number]>) => {
    const m = new Uint8Array(n * n);
    for (const [a, b] of es) if (a !== b) m[a * n + b] = 1;
    return m;
  };
  const rp = rel(np, pe);
  const rg = rel(ng, ge);
  const map = new Array<number>(np).fill(-1);
  const usedG = new Array<boolean>(ng).fill(false);
  let best = 0;
  const isConnected = (S: number[]) => {
    if (S.length <= 1) return true;
    const seen = new Set([S[0]!]);
    const stack = [S[0]!];
    while (stack.length) {
      const x = stack.pop()!;
      for (const y of S) {
        if (!seen.has(y) && (rp[x * np + y] || rp[y * np + x])) {
          seen.add(y);
          stack.push(y);
        }
      }
    }
    return seen.size === S.length;
  };
  const rec = (u: number) => {
    if (u === np) {
      const S = map.flatMap((g, i) => (g >= 0 ? [i] : []));
      for (const a of S) for (const b of S) if (a !== b && rp[a * np + b] !== rg[map[a]! * ng + map[b]!]) return;
      if (connected && !isConnected(S)) return;
      best = Math.max(best, S.length);
      return;
    }
    rec(u + 1);
    for (let g = 0; g < ng; g++) {
      if (usedG[g] || !compat[u]![g]) continue;
      usedG[g] = true;
      map[u] = g;
      rec(u + 1);
      map[u] = -1;
      usedG[g] = false;
    }
  };
  rec(0);
  return best;
}

describe("pred-guided topological order", () => {
  it("returns the priority order whenever that order is a valid topological order (property)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 9 }),
        fc.array(fc.tuple(fc.nat(), fc.nat()), { maxLength: 15 }),
        fc.nat(),
        (n, raw, seed) => {
          const edges = raw
            .map(([a, b]) => [Math.min(a % n, b % n), Math.max(a % n, b % n)] as [number, number])
            .filter(([a, b]) => a !== b);
          const { orders } = sampleTopologicalOrders(n, edges, 1, seed);
          const target = orders[0]!;
          // Leave some vertices without priority (unmatched nodes, START/END): they are placed as needed.
          const priority = new Array<number>(n).fill(Number.POSITIVE_INFINITY);
          for (const [pos, v] of target.entries()) if ((v + seed) % 3 !== 0) priority[v] = pos;
          const guided = guidedTopologicalOrder(n, edges, priority);
          const kept = (o: number[]) => o.filter((v) => priority[v] !== Number.POSITIVE_INFINITY);
          expect(kept(guided)).toEqual(kept(target));
          for (const [a, b] of edges) expect(guided.indexOf(a)).toBeLessThan(guided.indexOf(b));
        },
      ),
      { numRuns: 300, seed: 3 },
    );
  });
});

describe("maximum common induced subgraph", () => {
  const edgesArb = (n: number) =>
    fc.array(fc.tuple(fc.integer({ min: 0, max: n - 1 }), fc.integer({ min: 0, max: n - 1 })), { maxLength: 9 });

  it("equals brute force on random small directed graphs, connected and not (property)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5 }).chain((np) =>
          fc.integer({ min: 1, max: 5 }).chain((ng) =>
            fc.record({
              np: fc.constant(np),
              ng: fc.constant(ng),
              pe: edgesArb(np),
              ge: edgesArb(ng),
              compat: fc.array(fc.array(fc.boolean(), { minLength: ng, maxLength: ng }), {
                minLength: np,
                maxLength: np,
              }),
              connected: fc.boolean(),
            }),
          ),
        ),
        ({ np, ng, pe, ge, compat, connected }) => {
          const res = maximumCommonInducedSubgraph(
            { predCount: np, predEdges: pe, goldCount: ng, goldEdges: ge, compat },
            { connected },
          );
          expect(res.exact).toBe(true);
          expect(res.size).toBe(bruteMcis(np, pe, ng, ge, compat, connected));
          expect(res.mapping.filter((g) => g >= 0)).toHaveLength(res.size);
        },
      ),
      { numRuns: 400, seed: 5 },
    );
  });

  it("hand example: chain a→b→c vs chain a→b with everything compatible → 2", () => {
    const all = (r: number, c: number) => Array.from({ length: r }, () => new Array<boolean>(c).fill(true));
    const r = maximumCommonInducedSubgraph({
      predCount: 3,
      predEdges: [
        [0, 1],
        [1, 2],
      ],
      goldCount: 2,
      goldEdges: [[0, 1]],
      compat: all(3, 2),
    });
    expect(r.size).toBe(2);
    // A 4-cycle has no induced triangle and vice versa: pred triangle vs gold 4-cycle (undirected both ways) → 2.
    const tri: Array<[number, number]> = [
      [0, 1],
      [1, 2],
      [0, 2],
    ];
    const sq: Array<[number, number]> = [
      [0, 1],
      [1, 2],
      [2, 3],
      [0, 3],
    ];
    expect(
      maximumCommonInducedSubgraph({ predCount: 3, predEdges: tri, goldCount: 4, goldEdges: sq, compat: all(3, 4) })
        .size,
    ).toBe(2);
  });

  it("the step budget bounds the search and reports a lower bound", () => {
    const n = 24;
    const rnd = (() => {
      let s = 3;
      return () => {
        s = (s * 1103515245 + 12345) >>> 0;
        return s / 2 ** 32;
      };
    })();
    const dag = () => {
      const e: Array<[number, number]> = [];
      for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) if (rnd() < 0.5) e.push([i, j]);
      return e;
    };
    const compat = Array.from({ length: n }, () => new Array<boolean>(n).fill(true));
    const t0 = Date.now();
    const r = maximumCommonInducedSubgraph(
      { predCount: n, predEdges: dag(), goldCount: n, goldEdges: dag(), compat },
      { maxSteps: 2000 },
    );
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(r.exact).toBe(false);
    expect(r.steps).toBe(2001);
    expect(r.size).toBeGreaterThan(0);
    expect(r.upperBound).toBeGreaterThanOrEqual(r.size);
  });
});
