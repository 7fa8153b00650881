/** Topological orders of a DAG on vertices 0..n-1: networkx-order enumeration and seeded sampling. */
import { MetricCodes, MetricInputError } from "./errors.js";

/** Deduplicated successor lists in first-insertion order, plus in-degrees (what a networkx DiGraph holds). */
function digraph(n: number, edges: ReadonlyArray<readonly [number, number]>) {
  const succ: number[][] = Array.from({ length: n }, () => []);
  const seen = new Set<number>();
  const indeg = new Array<number>(n).fill(0);
  for (const [a, b] of edges) {
    if (!Number.isInteger(a) || !Number.isInteger(b) || a < 0 || b < 0 || a >= n || b >= n) {
      throw new MetricInputError(MetricCodes.invalidGraph, `edge (${a},${b}) is outside vertices 0..${n - 1}`, {
        field: "edges",
        edge: [a, b],
      });
    }
    const k = a * n + b;
    if (seen.has(k)) continue;
    seen.add(k);
    succ[a]!.push(b);
    indeg[b]!++;
  }
  return { succ, indeg };
}

/**
 * Yields topological orders in exactly networkx 3.x `all_topological_sorts` order (iterative
 * Knuth–Szwarcfiter: the most recently freed vertex is taken first), at most `limit` of them.
 * Throws `metric.cyclic_graph` if the graph has a cycle (including self-loops).
 */
export function* topologicalOrdersNx(
  n: number,
  edges: ReadonlyArray<readonly [number, number]>,
  limit = Number.POSITIVE_INFINITY,
): Generator<number[]> {
  if (n === 0) {
    if (limit > 0) yield [];
    return;
  }
  const { succ, indeg } = digraph(n, edges);
  const count = indeg.slice();
  // D is a deque: index 0 = left, last = right.
  const D: number[] = [];
  for (let v = 0; v < n; v++) if (count[v] === 0) D.push(v);
  const bases: number[] = [];
  const current: number[] = [];
  let emitted = 0;
  for (;;) {
    if (current.length === n) {
      yield current.slice();
      if (++emitted >= limit) return;
      while (current.length > 0) {
        const q = current.pop()!;
        for (const j of succ[q]!) count[j]!++;
        while (D.length > 0 && count[D[D.length - 1]!]! > 0) D.pop();
        D.unshift(q);
        if (D[D.length - 1] === bases[bases.length - 1]) bases.pop();
        else break;
      }
    } else {
      if (D.length === 0) {
        throw new MetricInputError(MetricCodes.cyclicGraph, "graph contains a cycle; it has no topological order", {
          field: "edges",
        });
      }
      const q = D.pop()!;
      for (const j of succ[q]!) {
        count[j]!--;
        if (count[j] === 0) D.push(j);
      }
      current.push(q);
      if (bases.length < current.length) bases.push(q);
    }
    if (bases.length === 0) return;
  }
}

import { seededRandom } from "../../util/random.js";

export const mulberry32 = seededRandom;

export interface OrderSample {
  orders: number[][];
  /** true when the graph has more orders than `max` and the returned ones are a seeded random sample. */
  sampled: boolean;
}

/**
 * Up to `max` distinct topological orders. If the DAG has at most `max` orders, all of them (networkx
 * order); otherwise `max` distinct orders drawn by random Kahn steps from a mulberry32(seed) stream
 * (bounded to 50·max draws, so a pathological graph returns fewer rather than looping).
 */
export function sampleTopologicalOrders(
  n: number,
  edges: ReadonlyArray<readonly [number, number]>,
  max: number,
  seed: number,
): OrderSample {
  const first = [...topologicalOrdersNx(n, edges, max + 1)];
  if (first.length <= max) return { orders: first, sampled: false };
  const { succ, indeg } = digraph(n, edges);
  const rnd = mulberry32(seed);
  const seen = new Set<string>();
  const orders: number[][] = [];
  for (let draw = 0; draw < 50 * max && orders.length < max; draw++) {
    const count = indeg.slice();
    const avail: number[] = [];
    for (let v = 0; v < n; v++) if (count[v] === 0) avail.push(v);
    const order: number[] = [];
    while (avail.length > 0) {
      const k = Math.floor(rnd() * avail.length);
      const q = avail[k]!;
      avail[k] = avail[avail.length - 1]!;
      avail.pop();
      order.push(q);
      for (const j of succ[q]!) if (--count[j]! === 0) avail.push(j);
    }
    const key = order.join(",");
    if (!seen.has(key)) {
      seen.add(key);
      orders.push(order);
    }
  }
  return { orders, sampled: true };
}

/**
 * Kahn's algorithm guided by `priority` (e.g. the pred position a gold node is matched to): each step
 * takes the available vertex whose subtree (itself and its descendants) holds the smallest priority,
 * then the smaller own priority, then the lower index. If the priorities list a valid topological order,
 * this returns exactly that order — so a sample of orders plus this one always contains the order an
 * exact copy of the gold follows.
 */
export function guidedTopologicalOrder(
  n: number,
  edges: ReadonlyArray<readonly [number, number]>,
  priority: readonly number[],
): number[] {
  const { succ, indeg } = digraph(n, edges);
  // Reverse topological pass for subtree minima (Kahn order first; a cycle leaves vertices unplaced).
  const count = indeg.slice();
  const queue: number[] = [];
  for (let v = 0; v < n; v++) if (count[v] === 0) queue.push(v);
  const topo: number[] = [];
  for (let h = 0; h < queue.length; h++) {
    const q = queue[h]!;
    topo.push(q);
    for (const j of succ[q]!) if (--count[j]! === 0) queue.push(j);
  }
  if (topo.length !== n) {
    throw new MetricInputError(MetricCodes.cyclicGraph, "graph contains a cycle; it has no topological order", {
      field: "edges",
    });
  }
  const sub = priority.slice(0, n);
  for (let k = n - 1; k >= 0; k--) {
    const v = topo[k]!;
    for (const j of succ[v]!) if (sub[j]! < sub[v]!) sub[v] = sub[j]!;
  }
  const left = indeg.slice();
  const avail: number[] = [];
  for (let v = 0; v < n; v++) if (left[v] === 0) avail.push(v);
  const order: number[] = [];
  const better = (a: number, b: number) =>
    sub[a]! !== sub[b]! ? sub[a]! < sub[b]! : priority[a]! !== priority[b]! ? priority[a]! < priority[b]! : a < b;
  while (avail.length > 0) {
    let k = 0;
    for (let i = 1; i < avail.length; i++) if (better(avail[i]!, avail[k]!)) k = i;
    const q = avail[k]!;
    avail.splice(k, 1);
    order.push(q);
    for (const j of succ[q]!) if (--left[j]! === 0) avail.push(j);
  }
  return order;
}
