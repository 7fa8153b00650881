/**
 * A clean-room inductive miner (Leemans et al. 2013: IM, and IMf with a noise threshold): base cases,
 * then the exclusive-choice, sequence, concurrency and loop cuts (in that order) with their log
 * projections, then fall-throughs (activity once per trace, activity concurrent, strict tau loop,
 * tau loop, flower). The result is folded (nested same operators flattened) and the children of
 * X and + are sorted by their text, so equal processes give equal trees.
 */
import { type Dfg, discoverDfg, type EventLog, edgeCount, filterDfg, toEventLog } from "./dfg.js";
import { MineCodes, MineError } from "./errors.js";

export type ProcessTree =
  | { kind: "activity"; label: string }
  | { kind: "tau" }
  | { kind: "seq" | "xor" | "and"; children: ProcessTree[] }
  /** children = [do, redo]: do (redo do)*. */
  | { kind: "loop"; children: [ProcessTree, ProcessTree] };

export interface InductiveOptions {
  /** 0 = IM; > 0 = IMf (empty traces below the threshold dropped, DFG filtered when no cut is found). */
  noise?: number;
}

const tau: ProcessTree = { kind: "tau" };
const act = (label: string): ProcessTree => ({ kind: "activity", label });

const OP_TEXT = { seq: "->", xor: "X", and: "+", loop: "*" } as const;

/** PM4Py's textual form: `->('a', X(tau, 'b'))`. */
export function treeToString(t: ProcessTree): string {
  if (t.kind === "tau") return "tau";
  if (t.kind === "activity") return `'${t.label}'`;
  return `${OP_TEXT[t.kind]}(${t.children.map(treeToString).join(", ")})`;
}

/** Activities of a tree, in left-to-right order. */
export function treeActivities(t: ProcessTree): string[] {
  if (t.kind === "tau") return [];
  if (t.kind === "activity") return [t.label];
  return t.children.flatMap(treeActivities);
}

// ---------------------------------------------------------------------------------------------
// helpers over logs

function addVariant(m: Map<string, { trace: string[]; count: number }>, trace: string[], count: number): void {
  const k = JSON.stringify(trace);
  const v = m.get(k);
  if (v) v.count += count;
  else m.set(k, { trace, count });
}

function filterLog(log: EventLog, keep: Set<string>): EventLog {
  const m = new Map<string, { trace: string[]; count: number }>();
  for (const v of log)
    addVariant(
      m,
      v.trace.filter((a) => keep.has(a)),
      v.count,
    );
  return [...m.values()];
}

function sortedActs(dfg: Dfg): string[] {
  return [...dfg.activities].sort();
}

class UnionFind {
  private parent = new Map<string, string>();
  constructor(items: Iterable<string>) {
    for (const i of items) this.parent.set(i, i);
  }
  find(x: string): string {
    let p = this.parent.get(x)!;
    while (p !== this.parent.get(p)) p = this.parent.get(p)!;
    this.parent.set(x, p);
    return p;
  }
  union(a: string, b: string): void {
    const ra = this.find(a);
    const rb = this.find(b);
    if (ra === rb) return;
    // The smaller label becomes the root, so group order is deterministic.
    const [lo, hi] = ra < rb ? [ra, rb] : [rb, ra];
    this.parent.set(hi, lo);
  }
  groups(order: string[]): string[][] {
    const m = new Map<string, string[]>();
    for (const x of order) {
      const r = this.find(x);
      if (!m.has(r)) m.set(r, []);
      m.get(r)!.push(x);
    }
    return [...m.values()];
  }
}

function reachability(dfg: Dfg): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const a of dfg.activities) {
    const seen = new Set<string>();
    const stack = [...(dfg.edges.get(a)?.keys() ?? [])];
    while (stack.length > 0) {
      const x = stack.pop()!;
      if (seen.has(x)) continue;
      seen.add(x);
      for (const y of dfg.edges.get(x)?.keys() ?? []) stack.push(y);
    }
    out.set(a, seen);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// cuts: each returns the groups (≥ 2) or undefined

function xorCut(dfg: Dfg): string[][] | undefined {
  const acts = sortedActs(dfg);
  const uf = new UnionFind(acts);
  for (const [a, m] of dfg.edges) for (const b of m.keys()) uf.union(a, b);
  const groups = uf.groups(acts);
  return groups.length > 1 ? groups : undefined;
}

function sequenceCut(dfg: Dfg): string[][] | undefined {
  const acts = sortedActs(dfg);
  const reach = reachability(dfg);
  const uf = new UnionFind(acts);
  for (let i = 0; i < acts.length; i++) {
    for (let j = i + 1; j < acts.length; j++) {
      const a = acts[i]!;
      const b = acts[j]!;
      const ab = reach.get(a)!.has(b);
      const ba = reach.get(b)!.has(a);
      if (ab === ba) uf.union(a, b);
    }
  }
  const groups = uf.groups(acts);
  if (groups.length < 2) return undefined;
  // Order: a group that reaches more of the others comes earlier.
  const reachesGroup = (g: string[], h: string[]) => g.some((a) => h.some((b) => reach.get(a)!.has(b)));
  const score = (g: string[]) => groups.filter((h) => h !== g && reachesGroup(g, h)).length;
  const sorted = [...groups].sort((x, y) => score(y) - score(x));
  // The closure merge can still leave groups that are not totally ordered; reject those.
  for (let i = 0; i < sorted.length; i++) {
    for (let j = i + 1; j < sorted.length; j++) {
      for (const a of sorted[i]!)
        for (const b of sorted[j]!) if (reach.get(b)!.has(a) || !reach.get(a)!.has(b)) return undefined;
    }
  }
  return sorted;
}

function concurrencyCut(dfg: Dfg): string[][] | undefined {
  const acts = sortedActs(dfg);
  const uf = new UnionFind(acts);
  for (let i = 0; i < acts.length; i++) {
    for (let j = i + 1; j < acts.length; j++) {
      const a = acts[i]!;
      const b = acts[j]!;
      if (!(edgeCount(dfg, a, b) > 0 && edgeCount(dfg, b, a) > 0)) uf.union(a, b);
    }
  }
  let groups = uf.groups(acts);
  if (groups.length < 2) return undefined;
  // Every group must contain a start and an end activity; merge the ones that do not.
  const ok = (g: string[]) => g.some((a) => dfg.start.has(a)) && g.some((a) => dfg.end.has(a));
  const good = groups.filter(ok);
  const bad = groups.filter((g) => !ok(g));
  if (good.length === 0) return undefined;
  if (bad.length > 0) good[0] = [...good[0]!, ...bad.flat()].sort();
  groups = good;
  return groups.length > 1 ? groups.sort((x, y) => x.length - y.length || x[0]!.localeCompare(y[0]!)) : undefined;
}

function loopCut(dfg: Dfg): string[][] | undefined {
  const acts = sortedActs(dfg);
  const startEnd = new Set([...dfg.start.keys(), ...dfg.end.keys()]);
  const rest = acts.filter((a) => !startEnd.has(a));
  const uf = new UnionFind(rest);
  const restSet = new Set(rest);
  for (const [a, m] of dfg.edges) for (const b of m.keys()) if (restSet.has(a) && restSet.has(b)) uf.union(a, b);
  const doGroup = new Set(startEnd);
  const redo: string[][] = [];
  const starts = [...dfg.start.keys()];
  const ends = [...dfg.end.keys()];
  for (const g of uf.groups(rest)) {
    const inG = new Set(g);
    let isRedo = true;
    for (const [a, m] of dfg.edges) {
      for (const b of m.keys()) {
        // Into the group only from end activities; out of it only to start activities.
        if (!inG.has(a) && inG.has(b) && !dfg.end.has(a)) isRedo = false;
        if (inG.has(a) && !inG.has(b) && !dfg.start.has(b)) isRedo = false;
      }
    }
    for (const b of g) {
      const fromEnd = ends.some((e) => edgeCount(dfg, e, b) > 0);
      if (fromEnd && !ends.every((e) => edgeCount(dfg, e, b) > 0)) isRedo = false;
      const toStart = starts.some((s) => edgeCount(dfg, b, s) > 0);
      if (toStart && !starts.every((s) => edgeCount(dfg, b, s) > 0)) isRedo = false;
    }
    const connects =
      g.some((b) => ends.some((e) => edgeCount(dfg, e, b) > 0)) &&
      g.some((b) => starts.some((s) => edgeCount(dfg, b, s) > 0));
    if (isRedo && connects) redo.push(g);
    else for (const b of g) doGroup.add(b);
  }
  // A start activity that is also reached from inside the do part directly after an end activity is
  // a redo via tau; that case is left to the tau-loop fall-through.
  if (redo.length === 0) return undefined;
  return [[...doGroup].sort(), ...redo];
}

// ---------------------------------------------------------------------------------------------
// projections

function xorSplit(log: EventLog, groups: string[][]): EventLog[] {
  const parts = groups.map(() => new Map<string, { trace: string[]; count: number }>());
  const sets = groups.map((g) => new Set(g));
  for (const v of log) {
    let best = 0;
    let bestN = -1;
    sets.forEach((s, i) => {
      const n = v.trace.filter((a) => s.has(a)).length;
      if (n >= bestN) {
        best = i;
        bestN = n;
      }
    });
    addVariant(
      parts[best]!,
      v.trace.filter((a) => sets[best]!.has(a)),
      v.count,
    );
  }
  return parts.map((p) => [...p.values()]);
}

function sequenceSplit(log: EventLog, groups: string[][]): EventLog[] {
  const parts = groups.map(() => new Map<string, { trace: string[]; count: number }>());
  const sets = groups.map((g) => new Set(g));
  for (const v of log) {
    let p = 0;
    for (let gi = 0; gi < groups.length; gi++) {
      const s = sets[gi]!;
      if (gi === groups.length - 1) {
        addVariant(
          parts[gi]!,
          v.trace.slice(p).filter((a) => s.has(a)),
          v.count,
        );
        break;
      }
      // Split where the running cost (−1 inside the group, +1 outside) is lowest.
      let cost = 0;
      let bestCost = 0;
      let bestEnd = p;
      for (let i = p; i < v.trace.length; i++) {
        cost += s.has(v.trace[i]!) ? -1 : 1;
        if (cost < bestCost) {
          bestCost = cost;
          bestEnd = i + 1;
        }
      }
      addVariant(
        parts[gi]!,
        v.trace.slice(p, bestEnd).filter((a) => s.has(a)),
        v.count,
      );
      p = bestEnd;
    }
  }
  return parts.map((x) => [...x.values()]);
}

function concurrencySplit(log: EventLog, groups: string[][]): EventLog[] {
  return groups.map((g) => filterLog(log, new Set(g)));
}

function loopSplit(log: EventLog, groups: string[][]): EventLog[] {
  const parts = groups.map(() => new Map<string, { trace: string[]; count: number }>());
  const sets = groups.map((g) => new Set(g));
  const doSet = sets[0]!;
  for (const v of log) {
    // Cut the trace into maximal do-segments and redo-segments.
    const segments: Array<{ redo: boolean; events: string[] }> = [];
    for (const a of v.trace) {
      const redo = !doSet.has(a);
      const last = segments.at(-1);
      if (last && last.redo === redo) last.events.push(a);
      else segments.push({ redo, events: [a] });
    }
    for (const seg of segments) {
      if (!seg.redo) {
        addVariant(parts[0]!, seg.events, v.count);
        continue;
      }
      // A redo segment goes to the redo group it overlaps most (ties: the later group).
      let best = 1;
      let bestN = -1;
      for (let i = 1; i < sets.length; i++) {
        const n = seg.events.filter((a) => sets[i]!.has(a)).length;
        if (n >= bestN) {
          best = i;
          bestN = n;
        }
      }
      addVariant(
        parts[best]!,
        seg.events.filter((a) => sets[best]!.has(a)),
        v.count,
      );
    }
  }
  return parts.map((p) => [...p.values()]);
}

// ---------------------------------------------------------------------------------------------
// the miner

interface Ctx {
  noise: number;
  depth: number;
}

function findCut(dfg: Dfg, log: EventLog): { kind: "xor" | "seq" | "and" | "loop"; parts: EventLog[] } | undefined {
  let g = xorCut(dfg);
  if (g) return { kind: "xor", parts: xorSplit(log, g) };
  g = sequenceCut(dfg);
  if (g) return { kind: "seq", parts: sequenceSplit(log, g) };
  g = concurrencyCut(dfg);
  if (g) return { kind: "and", parts: concurrencySplit(log, g) };
  g = loopCut(dfg);
  if (g) return { kind: "loop", parts: loopSplit(log, g) };
  return undefined;
}

function splitLoop(log: EventLog, at: (prev: string, next: string) => boolean): EventLog | undefined {
  const m = new Map<string, { trace: string[]; count: number }>();
  let split = false;
  for (const v of log) {
    let cur: string[] = [];
    for (const [i, a] of v.trace.entries()) {
      if (i > 0 && at(v.trace[i - 1]!, a)) {
        addVariant(m, cur, v.count);
        cur = [];
        split = true;
      }
      cur.push(a);
    }
    addVariant(m, cur, v.count);
  }
  return split ? [...m.values()] : undefined;
}

function mineRec(log: EventLog, ctx: Ctx): ProcessTree {
  if (ctx.depth > 200) throw new MineError(MineCodes.invalidOption, "inductive miner recursion too deep", {});
  const sub = { ...ctx, depth: ctx.depth + 1 };
  const total = log.reduce((s, v) => s + v.count, 0);
  if (total === 0) return tau;
  const empty = log.filter((v) => v.trace.length === 0).reduce((s, v) => s + v.count, 0);
  const nonEmpty = log.filter((v) => v.trace.length > 0);
  if (empty === total) return tau;
  if (empty > 0) {
    if (ctx.noise === 0 || empty > ctx.noise * total) return { kind: "xor", children: [tau, mineRec(nonEmpty, sub)] };
    return mineRec(nonEmpty, sub);
  }
  // Base case: a single activity, once per trace.
  if (nonEmpty.every((v) => v.trace.length === 1 && v.trace[0] === nonEmpty[0]!.trace[0]))
    return act(nonEmpty[0]!.trace[0]!);

  const dfg = discoverDfg(log);
  const recurse = (c: { kind: "xor" | "seq" | "and" | "loop"; parts: EventLog[] }): ProcessTree => {
    const children = c.parts.map((p) => mineRec(p, sub));
    if (c.kind === "loop") {
      const [body, ...redos] = children;
      const redo = redos.length === 1 ? redos[0]! : ({ kind: "xor", children: redos } as ProcessTree);
      return { kind: "loop", children: [body!, redo] };
    }
    return { kind: c.kind, children };
  };
  const cut = findCut(dfg, log);
  if (cut) return recurse(cut);
  if (ctx.noise > 0) {
    const filtered = findCut(filterDfg(dfg, { noise: ctx.noise }), log);
    if (filtered) return recurse(filtered);
  }
  return fallThrough(log, dfg, sub);
}

function fallThrough(log: EventLog, dfg: Dfg, ctx: Ctx): ProcessTree {
  const acts = sortedActs(dfg);
  if (acts.length > 1) {
    // Activity once per trace: +(a, rest).
    for (const a of acts) {
      if (log.every((v) => v.trace.filter((x) => x === a).length === 1)) {
        const rest = new Set(acts.filter((x) => x !== a));
        return { kind: "and", children: [act(a), mineRec(filterLog(log, rest), ctx)] };
      }
    }
    // Activity concurrent: removing a lets a cut apply.
    for (const a of acts) {
      const rest = new Set(acts.filter((x) => x !== a));
      const without = filterLog(log, rest);
      if (findCut(discoverDfg(without), without)) {
        return { kind: "and", children: [mineRec(filterLog(log, new Set([a])), ctx), mineRec(without, ctx)] };
      }
    }
  }
  const strict = splitLoop(log, (prev, next) => dfg.end.has(prev) && dfg.start.has(next));
  if (strict) return { kind: "loop", children: [mineRec(strict, ctx), tau] };
  const loose = splitLoop(log, (_prev, next) => dfg.start.has(next));
  if (loose) return { kind: "loop", children: [mineRec(loose, ctx), tau] };
  return { kind: "loop", children: [{ kind: "xor", children: acts.map(act) }, tau] };
}

/** Flattens nested same operators, drops one-child operators, merges duplicate taus of X; sorts X and +. */
export function foldTree(t: ProcessTree): ProcessTree {
  if (t.kind === "tau" || t.kind === "activity") return t;
  if (t.kind === "loop") return { kind: "loop", children: [foldTree(t.children[0]), foldTree(t.children[1])] };
  let children: ProcessTree[] = [];
  for (const c of t.children.map(foldTree)) {
    if (c.kind === t.kind) children.push(...(c as { children: ProcessTree[] }).children);
    else children.push(c);
  }
  if (t.kind === "seq" || t.kind === "and") children = children.filter((c) => c.kind !== "tau");
  if (t.kind === "xor") {
    const hasTau = children.some((c) => c.kind === "tau");
    children = [...(hasTau ? [tau] : []), ...children.filter((c) => c.kind !== "tau")];
  }
  if (t.kind === "xor" || t.kind === "and") {
    children.sort((a, b) =>
      a.kind === "tau" ? -1 : b.kind === "tau" ? 1 : treeToString(a).localeCompare(treeToString(b)),
    );
  }
  if (children.length === 0) return tau;
  if (children.length === 1) return children[0]!;
  return { kind: t.kind, children };
}

/** Mines a process tree from traces (activity sequences). */
export function inductiveMiner(
  traces: ReadonlyArray<readonly string[]> | EventLog,
  opts: InductiveOptions = {},
): ProcessTree {
  const noise = opts.noise ?? 0;
  if (!(noise >= 0 && noise <= 1))
    throw new MineError(MineCodes.invalidOption, `noise threshold ${noise} must be within [0, 1]`, { field: "noise" });
  const log: EventLog =
    traces.length > 0 && !Array.isArray(traces[0])
      ? (traces as EventLog)
      : toEventLog(traces as ReadonlyArray<readonly string[]>);
  if (log.length === 0) throw new MineError(MineCodes.logEmpty, "the event log has no traces", {});
  return foldTree(mineRec(log, { noise, depth: 0 }));
}
