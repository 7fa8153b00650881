import { type Bits, emptyBits, hasBit, intersectInto, unionInto, withBit } from "./bitset.js";
import { type ANode, type AnalysisGraph, ROOT } from "./graph.js";
import { type Guard, GuardAlgebra, TRUE_GUARD } from "./guards.js";

const FAIL_PORT = "fail-branch";
/** The outputs describeNode adds for an error strategy; on a fail-branch node they exist only on failure. */
export const ERROR_OUTPUTS: ReadonlySet<string> = new Set(["error_message", "error_type"]);

export interface Availability {
  /** Is `producer`'s output `output` certainly written whenever `reader` runs? */
  has(reader: number, producer: number, output?: string): boolean;
  /** Can that output have been written before `reader` runs, on some path (an upstream node)? */
  may(reader: number, producer: number, output?: string): boolean;
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
  // A fail-branch node writes its normal outputs on the `source` path and only error_message /
  // error_type on the `fail-branch` path, so it gets two bits: ok (bitOf) and failed (errBitOf).
  const bitOf = new Int32Array(g.nodes.length).fill(-1);
  const errBitOf = new Int32Array(g.nodes.length).fill(-1);
  let nbits = 0;
  for (const p of producers) {
    bitOf[p] = nbits++;
    if (g.nodes[p]!.desc.ports.includes(FAIL_PORT)) errBitOf[p] = nbits++;
  }
  const words = Math.max(1, Math.ceil(nbits / 32));
  const alg = new GuardAlgebra(maxTerms);
  const mustIn: Bits[] = new Array(g.nodes.length);
  const mayIn: Bits[] = new Array(g.nodes.length);
  const guard: Guard[] = new Array(g.nodes.length);
  const zero = emptyBits(words);

  const bitFor = (u: number, port: string): number =>
    port === FAIL_PORT && errBitOf[u]! >= 0 ? errBitOf[u]! : bitOf[u]!;
  const outOf = (u: number, port: string): Bits => {
    const b = bitFor(u, port);
    return b >= 0 ? withBit(mustIn[u]!, b) : mustIn[u]!;
  };
  const mayOut = (u: number, port: string): Bits => {
    const b = bitFor(u, port);
    return b >= 0 ? withBit(mayIn[u]!, b) : mayIn[u]!;
  };
  const readBit = (producer: number, output: string | undefined): number =>
    output !== undefined && ERROR_OUTPUTS.has(output) && errBitOf[producer]! >= 0
      ? errBitOf[producer]!
      : bitOf[producer]!;

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
      const groups = new Map<string, { guard: Guard; bits: Bits }>();
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
        const src = outOf(u, e.port);
        const acc = groups.get(ge.key);
        if (!acc) groups.set(ge.key, { guard: ge, bits: src });
        else if (acc.bits !== src) {
          const merged = acc.bits.slice();
          unionInto(merged, src);
          acc.bits = merged;
        }
      }
      guard[v] = alg.or(edgeGuards) ?? alg.atom(v);
      mustIn[v] = joinSets([...groups.values()], guard[v]!, alg) ?? base;
      let may = mayOut(incoming[0]!.source, incoming[0]!.port);
      for (let i = 1; i < incoming.length; i++) {
        const m = mayOut(incoming[i]!.source, incoming[i]!.port);
        if (m === may) continue;
        const acc = may.slice();
        unionInto(acc, m);
        may = acc;
      }
      mayIn[v] = may;
    }
  }

  return {
    has(reader, producer, output) {
      const b = readBit(producer, output);
      const m = mustIn[reader];
      return b >= 0 && m !== undefined && hasBit(m, b);
    },
    may(reader, producer, output) {
      const b = readBit(producer, output);
      const m = mayIn[reader];
      return b >= 0 && m !== undefined && hasBit(m, b);
    },
    guardOf: (idx) => guard[idx] ?? TRUE_GUARD,
    describeGuard: (idx) => alg.describe(guard[idx] ?? TRUE_GUARD, (v, port) => branchTaken(g.nodes[v], v, port)),
    get overflows() {
      return alg.overflows;
    },
  };
}

/**
 * One branch condition as people read it: if-else ports are case ids (UUIDs in Dify files), so they are named
 * by the case's place (IF, ELIF 1, ELSE) as the Dify canvas shows them.
 */
function branchTaken(n: ANode | undefined, v: number, port: string): string {
  const id = n?.id ?? `#${v}`;
  if (port === FAIL_PORT) return `${id} fails`;
  if (n?.node.type !== "if-else") return `${id}=${port}`;
  if (port === "false") return `${id} takes ELSE`;
  const cases = n.desc.ports.filter((p) => p !== "false" && p !== FAIL_PORT);
  const i = cases.indexOf(port);
  return `${id} takes ${i === 0 ? "IF" : i > 0 ? `ELIF ${i}` : `case ${port}`}`;
}

function intersectAll(sets: Bits[]): Bits | undefined {
  let result: Bits | undefined;
  for (const b of sets) {
    if (!result) result = b;
    else if (result !== b) {
      const acc = result.slice();
      intersectInto(acc, b);
      result = acc;
    }
  }
  return result;
}

/**
 * What is certain at a join. The node waits for every incoming edge, so an edge whose guard equals the
 * node's own guard is taken whenever the node runs: its sources have certainly run (an always-running
 * node joined with an if-else branch). The other groups may be taken alone, so they are intersected,
 * and count only when together they cover the node's guard (one of them is then always taken).
 */
function joinSets(groups: Array<{ guard: Guard; bits: Bits }>, nodeGuard: Guard, alg: GuardAlgebra): Bits | undefined {
  const certain = groups.filter((g) => g.guard.key === nodeGuard.key);
  if (certain.length === 0) return intersectAll(groups.map((g) => g.bits));
  const rest = groups.filter((g) => g.guard.key !== nodeGuard.key);
  const out = certain[0]!.bits.slice();
  for (const g of certain.slice(1)) unionInto(out, g.bits);
  if (rest.length > 0 && alg.or(rest.map((g) => g.guard))?.key === nodeGuard.key) {
    unionInto(out, intersectAll(rest.map((g) => g.bits))!);
  }
  return out;
}
