import { type Bits, emptyBits, popcount, unionInto } from "../bitset.js";
import type { ResolvedRead } from "../dataflow.js";
import { type AnalysisGraph, insideContainer, ROOT } from "../graph.js";
import { estimateTokens } from "./estimate.js";

export interface Liveness {
  /** Artifacts live across each node (read by it, or produced earlier and read later). */
  count: Int32Array;
  tokens: Float64Array;
}

/**
 * Backward live-variable analysis over each scope's DAG. Artifacts are (node, output) pairs that
 * some node reads. A container counts as reading whatever its body reads from outside it, and a
 * body ends with what is live after its container plus the body values the container collects.
 */
export function computeLiveness(g: AnalysisGraph, reads: readonly ResolvedRead[]): Liveness {
  const artifactOf = new Map<string, number>();
  const artifactTokens: number[] = [];
  const uses = new Map<number, number[]>();
  const defs = new Map<number, number[]>();
  const addUse = (n: number, a: number) => {
    const l = uses.get(n);
    if (l) l.push(a);
    else uses.set(n, [a]);
  };
  for (const rr of reads) {
    if (rr.producer === undefined || rr.read.selector.length < 2) continue;
    const key = `${rr.producer}\u0000${rr.read.selector[1]}`;
    let a = artifactOf.get(key);
    if (a === undefined) {
      a = artifactTokens.length;
      artifactOf.set(key, a);
      artifactTokens.push(estimateTokens(rr.type));
      const d = defs.get(rr.producer);
      if (d) d.push(a);
      else defs.set(rr.producer, [a]);
    }
    addUse(rr.read.reader, a);
    let c = g.nodes[rr.read.reader]!.scope;
    while (c !== ROOT && !insideContainer(g, rr.producer, c) && c !== rr.producer) {
      addUse(c, a);
      c = g.nodes[c]!.scope;
    }
  }
  const count = new Int32Array(g.nodes.length);
  const tokens = new Float64Array(g.nodes.length);
  const words = Math.max(1, Math.ceil(artifactTokens.length / 32));
  if (artifactTokens.length === 0) return { count, tokens };
  const classes = new Map<number, Bits>();
  artifactTokens.forEach((size, a) => {
    let mask = classes.get(size);
    if (!mask) {
      mask = emptyBits(words);
      classes.set(size, mask);
    }
    mask[a >>> 5] = mask[a >>> 5]! | (1 << (a & 31));
  });
  const classSizes = [...classes.keys()];
  const classMasks = [...classes.values()];
  const liveIn: Bits[] = new Array(g.nodes.length);
  const liveOut: Bits[] = new Array(g.nodes.length);

  for (const s of g.scopeOrder) {
    const scope = g.scopes.get(s)!;
    let sinkOut = emptyBits(words);
    if (s !== ROOT) {
      sinkOut = (liveOut[s] ?? sinkOut).slice();
      // The container collects body values (iteration output_selector) after the body ends.
      for (const a of uses.get(s) ?? []) sinkOut[a >>> 5] = sinkOut[a >>> 5]! | (1 << (a & 31));
    }
    for (let i = scope.order.length - 1; i >= 0; i--) {
      const v = scope.order[i]!;
      const succ = g.nodes[v]!.out.filter((e) => !e.back);
      const out = succ.length === 0 ? sinkOut.slice() : emptyBits(words);
      for (const e of succ) if (liveIn[e.target]) unionInto(out, liveIn[e.target]!);
      const inn = out.slice();
      for (const a of defs.get(v) ?? []) inn[a >>> 5] = inn[a >>> 5]! & ~(1 << (a & 31));
      for (const a of uses.get(v) ?? []) inn[a >>> 5] = inn[a >>> 5]! | (1 << (a & 31));
      liveIn[v] = inn;
      liveOut[v] = out;
      // Sizes take few distinct values, so sum per size class with popcounts instead of per artifact.
      let c = 0;
      let t = 0;
      for (let w = 0; w < words; w++) {
        const x = inn[w]! | out[w]!;
        if (x === 0) continue;
        c += popcount(x);
        for (let k = 0; k < classSizes.length; k++) t += classSizes[k]! * popcount(x & classMasks[k]![w]!);
      }
      count[v] = c;
      tokens[v] = t;
    }
  }
  return { count, tokens };
}
