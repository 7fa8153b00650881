import type { AnalysisGraph } from "./graph.js";

/** The nodes reachable from `from` along forward edges (itself included). */
function downstream(g: AnalysisGraph, from: number): Set<number> {
  const seen = new Set<number>([from]);
  const stack = [from];
  while (stack.length > 0) {
    const n = stack.pop()!;
    for (const e of g.nodes[n]!.out) {
      if (e.back || seen.has(e.target)) continue;
      seen.add(e.target);
      stack.push(e.target);
    }
  }
  return seen;
}

/**
 * The node that forks a parallel run of `producer` and `reader`: two edges of one of its ports (both taken
 * together, as Dify runs a fan-out) lead to each, and neither node reaches the other. Dify then runs the
 * reader whether or not the producer has finished: the value exists when its branch won the race.
 * Undefined when no fork puts them side by side (exclusive branches, or the producer downstream).
 */
export function parallelFork(g: AnalysisGraph, producer: number, reader: number): number | undefined {
  if (downstream(g, reader).has(producer) || downstream(g, producer).has(reader)) return undefined;
  const reach = new Map<number, Set<number>>();
  const from = (n: number) => reach.get(n) ?? reach.set(n, downstream(g, n)).get(n)!;
  for (let f = 0; f < g.nodes.length; f++) {
    const byPort = new Map<string, number[]>();
    for (const e of g.nodes[f]!.out) if (!e.back) byPort.set(e.port, [...(byPort.get(e.port) ?? []), e.target]);
    for (const targets of byPort.values()) {
      if (targets.length < 2) continue;
      const toProducer = targets.filter((t) => from(t).has(producer));
      const toReader = targets.filter((t) => from(t).has(reader));
      if (toProducer.some((a) => toReader.some((b) => a !== b))) return f;
    }
  }
  return undefined;
}
