import { z } from "zod";
import { WeftError } from "../../ir/errors.js";

/**
 * Boolean formulas over named atomic predicates, and predicate coverage in the MC/DC sense: for every
 * atom, a pair of assignments that differ only in that atom and give the formula different values
 * (unique-cause MC/DC). An atom with no such pair cannot affect the outcome on its own: it is *masked*
 * (e.g. `b` in `a or (a and b)`), which usually means the condition is redundant or mis-written.
 */
export type Formula = { atom: string } | { and: Formula[] } | { or: Formula[] } | { not: Formula } | { const: boolean };

export const FormulaSchema: z.ZodType<Formula> = z.lazy(() =>
  z.union([
    z.object({ atom: z.string().min(1) }),
    z.object({ and: z.array(FormulaSchema).min(1) }),
    z.object({ or: z.array(FormulaSchema).min(1) }),
    z.object({ not: FormulaSchema }),
    z.object({ const: z.boolean() }),
  ]),
);

export type Assignment = Record<string, boolean>;

export class CoverageError extends WeftError {}

/** Distinct atoms in order of first appearance. */
export function atomsOf(f: Formula): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const walk = (g: Formula): void => {
    if ("atom" in g) {
      if (!seen.has(g.atom)) {
        seen.add(g.atom);
        out.push(g.atom);
      }
    } else if ("and" in g) g.and.forEach(walk);
    else if ("or" in g) g.or.forEach(walk);
    else if ("not" in g) walk(g.not);
  };
  walk(f);
  return out;
}

export function evaluate(f: Formula, a: Assignment): boolean {
  if ("atom" in f) {
    const v = a[f.atom];
    if (v === undefined)
      throw new CoverageError("coverage.unassigned_atom", `atom "${f.atom}" has no value in the assignment`, {
        atom: f.atom,
      });
    return v;
  }
  if ("and" in f) return f.and.every((g) => evaluate(g, a));
  if ("or" in f) return f.or.some((g) => evaluate(g, a));
  if ("not" in f) return !evaluate(f.not, a);
  return f.const;
}

export function formatFormula(f: Formula): string {
  if ("atom" in f) return f.atom;
  if ("and" in f) return f.and.length === 1 ? formatFormula(f.and[0]!) : `(${f.and.map(formatFormula).join(" and ")})`;
  if ("or" in f) return f.or.length === 1 ? formatFormula(f.or[0]!) : `(${f.or.map(formatFormula).join(" or ")})`;
  if ("not" in f) return `not ${formatFormula(f.not)}`;
  return String(f.const);
}

export interface IndependencePair {
  atom: string;
  /** The atom true, then false; every other atom the same. */
  whenTrue: Assignment;
  whenFalse: Assignment;
  /** The formula's value in each. */
  outcomeTrue: boolean;
  outcomeFalse: boolean;
}

export interface CoverageResult {
  atoms: string[];
  pairs: IndependencePair[];
  /** Atoms no pair exists for: they never flip the outcome alone. */
  masked: string[];
  /** The distinct assignments the pairs use (what a dry run executes). */
  scenarios: Assignment[];
  /** True when the search was exhaustive (few atoms); otherwise pairs were searched by sampling. */
  exhaustive: boolean;
  /** Every independence pair found per atom (the chosen one first), for callers that must realise them. */
  alternatives: Record<string, IndependencePair[]>;
}

const EXHAUSTIVE_LIMIT = 14;

const keyOf = (atoms: readonly string[], a: Assignment) => atoms.map((x) => (a[x] ? "1" : "0")).join("");

function fromBits(atoms: readonly string[], bits: number): Assignment {
  const a: Assignment = {};
  atoms.forEach((x, i) => {
    a[x] = ((bits >>> i) & 1) === 1;
  });
  return a;
}

/** A small deterministic PRNG (mulberry32) so sampled coverage is repeatable. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Predicate coverage of `f`. Up to 14 atoms every independence pair is found and a small set is picked
 * greedily: each atom takes the pair that adds the fewest new scenarios (so pairs share assignments,
 * giving n+1 scenarios for a pure and/or of n atoms). Beyond that, pairs are searched by seeded sampling
 * and an atom not found in `samples` tries is reported masked (with `exhaustive: false`).
 */
export function predicateCoverage(f: Formula, opts: { samples?: number; seed?: number } = {}): CoverageResult {
  const atoms = atomsOf(f);
  const n = atoms.length;
  const candidates = new Map<string, IndependencePair[]>();
  const exhaustive = n <= EXHAUSTIVE_LIMIT;
  if (exhaustive) {
    const table: boolean[] = [];
    for (let bits = 0; bits < 1 << n; bits++) table.push(evaluate(f, fromBits(atoms, bits)));
    atoms.forEach((atom, i) => {
      const list: IndependencePair[] = [];
      for (let bits = 0; bits < 1 << n; bits++) {
        if ((bits >>> i) & 1) continue;
        const t = bits | (1 << i);
        if (table[t] !== table[bits]) {
          list.push({
            atom,
            whenTrue: fromBits(atoms, t),
            whenFalse: fromBits(atoms, bits),
            outcomeTrue: table[t]!,
            outcomeFalse: table[bits]!,
          });
        }
      }
      candidates.set(atom, list);
    });
  } else {
    const rand = rng(opts.seed ?? 1);
    const tries = opts.samples ?? 4000;
    for (const atom of atoms) {
      const list: IndependencePair[] = [];
      for (let k = 0; k < tries && list.length < 4; k++) {
        const a: Assignment = {};
        for (const x of atoms) a[x] = rand() < 0.5;
        const t = { ...a, [atom]: true };
        const fa = { ...a, [atom]: false };
        const vt = evaluate(f, t);
        const vf = evaluate(f, fa);
        if (vt !== vf) list.push({ atom, whenTrue: t, whenFalse: fa, outcomeTrue: vt, outcomeFalse: vf });
      }
      candidates.set(atom, list);
    }
  }
  const chosen = new Map<string, Assignment>();
  const pairs: IndependencePair[] = [];
  const masked: string[] = [];
  // Atoms with the fewest options first: their choice constrains the rest the most.
  const order = [...atoms].sort((a, b) => (candidates.get(a)?.length ?? 0) - (candidates.get(b)?.length ?? 0));
  for (const atom of order) {
    const list = candidates.get(atom) ?? [];
    if (list.length === 0) {
      masked.push(atom);
      continue;
    }
    let best = list[0]!;
    let bestCost = Number.POSITIVE_INFINITY;
    for (const p of list) {
      const cost = Number(!chosen.has(keyOf(atoms, p.whenTrue))) + Number(!chosen.has(keyOf(atoms, p.whenFalse)));
      if (cost < bestCost) {
        best = p;
        bestCost = cost;
        if (cost === 0) break;
      }
    }
    pairs.push(best);
    chosen.set(keyOf(atoms, best.whenTrue), best.whenTrue);
    chosen.set(keyOf(atoms, best.whenFalse), best.whenFalse);
  }
  pairs.sort((a, b) => atoms.indexOf(a.atom) - atoms.indexOf(b.atom));
  masked.sort((a, b) => atoms.indexOf(a) - atoms.indexOf(b));
  const alternatives: Record<string, IndependencePair[]> = {};
  for (const p of pairs) alternatives[p.atom] = [p, ...(candidates.get(p.atom) ?? []).filter((q) => q !== p)];
  return { atoms, pairs, masked, scenarios: [...chosen.values()], exhaustive, alternatives };
}
