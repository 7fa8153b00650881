import { type Bits, emptyBits, hasBit, intersectInto, unionInto, withBit } from "./bitset.js";
import { type AnalysisGraph, ROOT } from "./graph.js";
import { type Guard, GuardAlgebra, TRUE_GUARD } from "./guards.js";

export interface Availability {
  /** Has `producer` certainly run (and written its outputs) whenever `reader` runs? */
  has(reader: number, producer: number): boolean;
  /** Can `producer` have run before `reader` on some path (an upstream node)? */
  may(reader: number, producer: number): boolean;
  guardOf(idx: number): Guard;
  describeGuard(idx: number): string;
  /** Joins where the guard exceeded the term bound and plain intersection was used. */
  overflows: number;
}

/**
 * Must-run sets under the engine's join rule (a node runs when all incoming edges are resolved and
 * at least one is taken). Incoming edges are grouped by guard: edges with equal guards are taken
 * together, so their sources' sets are united; different guards may be taken alone, so groups are
 * intersected. A body starts with what is certain before its container. Only nodes that someone
 * reads get a bit, which keeps the sets small. Edges from unreached nodes are never taken.
 */
export function computeAvailability(
  g: AnalysisGraph,
  producers: ReadonlySet<number>,
  reached: Uint8Array,
  maxTerms = 64,
): Availability {
  const bitOf = new Int32Array(g.nodes.length).fill(-1);
  let nbits = 0;
  for (const p of producers) bitOf[p] = nbits++;
  const words = Math.max(1, Math.ceil(nbits / 32));
  const alg = new GuardAlgebra(maxTerms);
  const mustIn: Bits[] = new Array(g.nodes.length);
  const mayIn: Bits[] = new Array(g.nodes.length);
  const guard: Guard[] = new Array(g.nodes.length);
  const zero = emptyBits(words);

  const outOf = (u: number): Bits => (bitOf[u]! >= 0 ? withBit(mustIn[u]!, bitOf[u]!) : mustIn[u]!);
  const mayOut = (u: number): Bits => (bitOf[u]! >= 0 ? withBit(mayIn[u]!, bitOf[u]!) : mayIn[u]!);

  for (const s of g.scopeOrder) {
    const scope = g.scopes.get(s)!;
    const base = s === ROOT ? zero : (mustIn[s] ?? zero);
    const mayBase = s === ROOT ? zero : (mayIn[s] ?? zero);
    for (const v of scope.order) {
      const node = g.nodes[v]!;
      const incoming = node.in.filter((e) => !e.back && reached[e.source] && mustIn[e.source] !== undefined);
      if (v === scope.entry || incoming.length === 0) {
        mustIn[v] = base;
        mayIn[v] = mayBase;
        guard[v] = TRUE_GUARD;
        continue;
      }
      const groups = new Map<string, Bits>();
      const edgeGuards: Guard[] = [];
      for (const e of incoming) {
        const u = e.source;
        const ports = g.nodes[u]!.desc.ports;
        let ge = guard[u]!;
        if (ports.length > 1) {
          alg.declare(u, ports);
          ge = alg.and(ge, alg.literal(u, e.port));
        }
        edgeGuards.push(ge);
        const src = outOf(u);
        const acc = groups.get(ge.key);
        if (!acc) groups.set(ge.key, src);
        else if (acc !== src) {
          const merged = acc.slice();
          unionInto(merged, src);
          groups.set(ge.key, merged);
        }
      }
      let result: Bits | undefined;
      for (const grp of groups.values()) {
        if (!result) result = grp;
        else {
          if (result === grp) continue;
          const acc = result.slice();
          intersectInto(acc, grp);
          result = acc;
        }
      }
      mustIn[v] = result ?? base;
      let may = mayOut(incoming[0]!.source);
      for (let i = 1; i < incoming.length; i++) {
        const m = mayOut(incoming[i]!.source);
        if (m === may) continue;
        const acc = may.slice();
        unionInto(acc, m);
        may = acc;
      }
      mayIn[v] = may;
      guard[v] = alg.or(edgeGuards) ?? alg.atom(v);
    }
  }

  return {
    has(reader, producer) {
      const b = bitOf[producer]!;
      const m = mustIn[reader];
      return b >= 0 && m !== undefined && hasBit(m, b);
    },
    may(reader, producer) {
      const b = bitOf[producer]!;
      const m = mayIn[reader];
      return b >= 0 && m !== undefined && hasBit(m, b);
    },
    guardOf: (idx) => guard[idx] ?? TRUE_GUARD,
    describeGuard: (idx) => alg.describe(guard[idx] ?? TRUE_GUARD, (v) => g.nodes[v]?.id ?? `#${v}`),
    get overflows() {
      return alg.overflows;
    },
  };
}
