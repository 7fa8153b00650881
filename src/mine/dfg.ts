/**
 * Event logs and directly-follows graphs. A log is compressed to its variants (distinct activity
 * sequences with counts); the DFG counts a→b over consecutive events, weighted by variant count.
 */
import { MineCodes, MineError } from "./errors.js";

export interface Variant {
  trace: string[];
  count: number;
}
export type EventLog = Variant[];

export interface Dfg {
  activities: Set<string>;
  /** edges.get(a).get(b) = how often b directly follows a. */
  edges: Map<string, Map<string, number>>;
  start: Map<string, number>;
  end: Map<string, number>;
  /** Traces (with multiplicity) of length 0. */
  emptyTraces: number;
  traces: number;
}

/** Groups traces into variants, keeping first-seen order so results are deterministic. */
export function toEventLog(traces: ReadonlyArray<readonly string[]>): EventLog {
  const byKey = new Map<string, Variant>();
  for (const t of traces) {
    const key = JSON.stringify(t);
    const v = byKey.get(key);
    if (v) v.count += 1;
    else byKey.set(key, { trace: [...t], count: 1 });
  }
  return [...byKey.values()];
}

function bump<K>(m: Map<K, number>, k: K, by: number): void {
  m.set(k, (m.get(k) ?? 0) + by);
}

export function discoverDfg(log: EventLog): Dfg {
  const dfg: Dfg = {
    activities: new Set(),
    edges: new Map(),
    start: new Map(),
    end: new Map(),
    emptyTraces: 0,
    traces: 0,
  };
  for (const { trace, count } of log) {
    dfg.traces += count;
    if (trace.length === 0) {
      dfg.emptyTraces += count;
      continue;
    }
    for (const a of trace) dfg.activities.add(a);
    bump(dfg.start, trace[0]!, count);
    bump(dfg.end, trace[trace.length - 1]!, count);
    for (let i = 0; i + 1 < trace.length; i++) {
      const a = trace[i]!;
      let out = dfg.edges.get(a);
      if (!out) {
        out = new Map();
        dfg.edges.set(a, out);
      }
      bump(out, trace[i + 1]!, count);
    }
  }
  return dfg;
}

export function edgeCount(dfg: Dfg, a: string, b: string): number {
  return dfg.edges.get(a)?.get(b) ?? 0;
}

export interface DfgFilter {
  /** Keep an edge only if it occurs at least this often. */
  minCount?: number;
  /**
   * IMf noise filter: keep (a,b) iff count ≥ noise × (the most frequent outgoing edge of a, the end
   * count of a included). 0 keeps everything.
   */
  noise?: number;
}

/** Frequency filtering: drops rare edges (start/end counts and activities are kept). */
export function filterDfg(dfg: Dfg, f: DfgFilter): Dfg {
  const min = f.minCount ?? 0;
  const noise = f.noise ?? 0;
  if (!(noise >= 0 && noise <= 1))
    throw new MineError(MineCodes.invalidOption, `noise threshold ${noise} must be within [0, 1]`, { field: "noise" });
  const edges = new Map<string, Map<string, number>>();
  for (const [a, out] of dfg.edges) {
    const maxOut = Math.max(dfg.end.get(a) ?? 0, ...out.values());
    const kept = new Map<string, number>();
    for (const [b, n] of out) if (n >= min && n >= noise * maxOut) kept.set(b, n);
    if (kept.size > 0) edges.set(a, kept);
  }
  return { ...dfg, edges };
}

/** Edges as sorted [a, b, count] triples (for display and tests). */
export function dfgEdges(dfg: Dfg): Array<[string, string, number]> {
  const out: Array<[string, string, number]> = [];
  for (const [a, m] of dfg.edges) for (const [b, n] of m) out.push([a, b, n]);
  return out.sort((x, y) => (x[0] === y[0] ? x[1].localeCompare(y[1]) : x[0].localeCompare(y[0])));
}
