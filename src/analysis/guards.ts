/**
 * Guards: the condition under which a node runs, as a DNF over branch choices `branchNode = port`.
 * A term is a sorted list of literal ids (at most one literal per branch node); a guard is a set of
 * terms. Simplification applies absorption (x ∨ x∧y = x) and completion (x∧b=p1 ∨ … ∨ x∧b=pk = x
 * when p1…pk are all the ports of b), so that the guards of the two sides of an if-else rejoin to
 * the guard before the branch. This is a canonical form for the guards the engine's join rule
 * produces in practice, not for arbitrary boolean functions: when two logically equal guards are
 * written differently the analyser treats them as different, which only makes it stricter.
 *
 * Size bound: a guard with more than `maxTerms` terms is replaced by an opaque atom "node v ran",
 * which is exact but equal to nothing else, so joins below it fall back to plain intersection.
 */
export interface Guard {
  terms: number[][];
  /** Canonical text; equal keys mean equal guards. */
  key: string;
}

export const TRUE_GUARD: Guard = { terms: [[]], key: "T" };

export class GuardAlgebra {
  private readonly litIds = new Map<string, number>();
  private readonly litVar: number[] = [];
  private readonly litPort: string[] = [];
  private readonly varPorts = new Map<number, readonly string[]>();
  overflows = 0;

  constructor(readonly maxTerms = 64) {}

  /** Declare a branch variable (a branch node) and all the ports it can choose. */
  declare(varId: number, ports: readonly string[]): void {
    if (!this.varPorts.has(varId)) this.varPorts.set(varId, [...new Set(ports)]);
  }

  literal(varId: number, port: string): number {
    const k = `${varId}=${port}`;
    let id = this.litIds.get(k);
    if (id === undefined) {
      id = this.litVar.length;
      this.litIds.set(k, id);
      this.litVar.push(varId);
      this.litPort.push(port);
    }
    return id;
  }

  /** An opaque "v ran" atom: a variable with a port that is never completed. */
  atom(varId: number): Guard {
    this.declare(varId, ["ran", "not-ran"]);
    this.overflows++;
    return this.make([[this.literal(varId, "ran")]]);
  }

  /** g ∧ (var = port). */
  and(g: Guard, lit: number): Guard {
    const v = this.litVar[lit]!;
    const terms: number[][] = [];
    for (const t of g.terms) {
      let clash = false;
      let present = false;
      for (const l of t) {
        if (this.litVar[l] === v) {
          if (l === lit) present = true;
          else clash = true;
        }
      }
      if (clash) continue;
      terms.push(present ? t : insertSorted(t, lit));
    }
    return this.make(terms);
  }

  /** g1 ∨ … ∨ gn, simplified; undefined when the result exceeds maxTerms. */
  or(gs: readonly Guard[]): Guard | undefined {
    if (gs.length === 1) return gs[0];
    const all: number[][] = [];
    for (const g of gs) {
      if (g.key === "T") return TRUE_GUARD;
      for (const t of g.terms) all.push(t);
    }
    const terms = this.simplify(all);
    if (terms === undefined || terms.length > this.maxTerms) return undefined;
    return this.make(terms);
  }

  /** `literal` names one "node took port" condition the way a reader knows it (see `describeGuard`). */
  describe(g: Guard, literal: (varId: number, port: string) => string): string {
    if (g.key === "T") return "always";
    if (g.terms.length === 0) return "never";
    return g.terms.map((t) => t.map((l) => literal(this.litVar[l]!, this.litPort[l]!)).join(" and ")).join(" or ");
  }

  private make(terms: number[][]): Guard {
    if (terms.length === 1 && terms[0]!.length === 0) return TRUE_GUARD;
    const keys = terms.map((t) => t.join(",")).sort();
    return { terms, key: keys.join("|") };
  }

  private simplify(input: number[][]): number[][] | undefined {
    let terms = dedupe(input);
    // Each completion strictly shortens a term, so this terminates; the bound guards pathological input.
    for (let round = 0; round < 64; round++) {
      terms = absorb(terms);
      if (terms.length > this.maxTerms * 4) return undefined;
      const merged = this.complete(terms);
      if (!merged) return terms;
      terms = dedupe(merged);
    }
    return terms;
  }

  /** One completion pass; undefined when nothing merged. */
  private complete(terms: number[][]): number[][] | undefined {
    const groups = new Map<string, { rest: number[]; varId: number; ports: Set<string>; members: number[] }>();
    terms.forEach((t, ti) => {
      for (let j = 0; j < t.length; j++) {
        const l = t[j]!;
        const varId = this.litVar[l]!;
        const rest = t.slice(0, j).concat(t.slice(j + 1));
        const key = `${varId}:${rest.join(",")}`;
        let grp = groups.get(key);
        if (!grp) {
          grp = { rest, varId, ports: new Set(), members: [] };
          groups.set(key, grp);
        }
        grp.ports.add(this.litPort[l]!);
        grp.members.push(ti);
      }
    });
    const drop = new Set<number>();
    const add: number[][] = [];
    for (const grp of groups.values()) {
      const all = this.varPorts.get(grp.varId);
      if (!all || all.length === 0 || !all.every((p) => grp.ports.has(p))) continue;
      add.push(grp.rest);
      for (const m of grp.members) drop.add(m);
    }
    if (add.length === 0) return undefined;
    return terms.filter((_, i) => !drop.has(i)).concat(add);
  }
}

function insertSorted(t: readonly number[], x: number): number[] {
  const out = t.slice();
  let i = out.length;
  while (i > 0 && out[i - 1]! > x) i--;
  out.splice(i, 0, x);
  return out;
}

function dedupe(terms: number[][]): number[][] {
  const seen = new Map<string, number[]>();
  for (const t of terms) seen.set(t.join(","), t);
  return [...seen.values()];
}

/** Drop every term that contains another term (sorted literal lists). */
function absorb(terms: number[][]): number[][] {
  const sorted = terms.slice().sort((a, b) => a.length - b.length);
  const kept: number[][] = [];
  for (const t of sorted) {
    if (!kept.some((k) => isSubset(k, t))) kept.push(t);
  }
  return kept;
}

function isSubset(a: readonly number[], b: readonly number[]): boolean {
  if (a.length > b.length) return false;
  let j = 0;
  for (const x of a) {
    while (j < b.length && b[j]! < x) j++;
    if (j >= b.length || b[j] !== x) return false;
    j++;
  }
  return true;
}
