import { compare, normaliseOperator } from "../../nodes/conditions.js";
import { parseJsonArray } from "../../util/json.js";
import type { Atom, ModelCondition, SopModel } from "../model.js";
import { type Assignment, type Formula, formatFormula, predicateCoverage } from "./coverage.js";
import type { SourceDecision, SourceLogic } from "./source.js";

/**
 * Dry runs: for every decision of the SOP (as the model read it, extracted apart from the draft) and the
 * compiled construct that implements it, scenarios are chosen by predicate coverage of *both* formulas,
 * made concrete (a value per artifact that gives each atom the wanted truth), and both sides are
 * evaluated with Dify's own comparison semantics. A scenario where they differ is a disagreement.
 */

export interface Disagreement {
  decision: string;
  construct: string;
  /** Artifact values of the scenario. */
  scenario: Record<string, unknown>;
  source: boolean;
  compiled: boolean;
  sourceFormula: string;
  compiledFormula: string;
  /** Which coverage produced the scenario: the independence pair of this atom. */
  witnessOf: string;
}

export interface DecisionRun {
  decision: string;
  description: string;
  construct?: string;
  scenarios: number;
  /** Assignments no artifact values can realise (atoms on one artifact that contradict). */
  infeasible: number;
  maskedSource: string[];
  maskedCompiled: string[];
  /** Atoms whose independence no artifact values can show (implied by another comparison on the same value). */
  unrealisable: string[];
  /** Artifacts both the SOP decision and the construct test; none means they speak of different values. */
  sharedArtifacts: string[];
  disagreements: Disagreement[];
}

export interface DryRunReport {
  decisions: DecisionRun[];
  scenariosRun: number;
  disagreements: Disagreement[];
  /** SOP decisions no branch or loop implements. */
  unimplemented: string[];
  /** Branches and loops that claim no SOP decision and matched none. */
  unmatched: string[];
}

/** A canonical key per comparison, so the same predicate in the SOP reading and the draft is one atom. */
export function atomKey(a: Atom): string {
  const op = normaliseOperator(a.comparison_operator) ?? a.comparison_operator;
  const v =
    a.value === undefined || a.value === null
      ? ""
      : typeof a.value === "object"
        ? JSON.stringify(a.value)
        : String(a.value);
  return `${variableOf(a)} ${op} ${v}`;
}

/** The value an atom tests: artifact plus path. */
function variableOf(a: Atom): string {
  return [a.artifact, ...(a.path ?? [])].join(".");
}

function conditionFormula(c: ModelCondition): { formula: Formula; atoms: Map<string, Atom> } {
  const atoms = new Map<string, Atom>();
  const parts = c.conditions.map((a) => {
    const k = atomKey(a);
    atoms.set(k, a);
    return { atom: k } as Formula;
  });
  return { formula: c.logical_operator === "or" ? { or: parts } : { and: parts }, atoms };
}

function sourceFormula(d: SourceDecision): { formula: Formula; atoms: Map<string, Atom> } {
  const byId = new Map(d.atoms.map((a) => [a.id, a]));
  const atoms = new Map<string, Atom>();
  const rename = (f: Formula): Formula => {
    if ("atom" in f) {
      const a = byId.get(f.atom);
      if (!a) return f;
      const k = atomKey(a);
      atoms.set(k, a);
      return { atom: k };
    }
    if ("and" in f) return { and: f.and.map(rename) };
    if ("or" in f) return { or: f.or.map(rename) };
    if ("not" in f) return { not: rename(f.not) };
    return f;
  };
  return { formula: rename(d.formula), atoms };
}

/** Candidate values that can make an atom true or false, by operator. */
function witnesses(a: Atom): unknown[] {
  const op = normaliseOperator(a.comparison_operator);
  const v = a.value;
  const s = v === undefined || v === null ? "" : String(v);
  const list = (): unknown[] => {
    if (Array.isArray(v)) return v;
    if (typeof v === "string") return parseJsonArray(v) ?? v.split(",").map((x) => x.trim());
    return [v];
  };
  switch (op) {
    case "is":
    case "is not":
      return [v, s, `${s}_other`, ""];
    case "=":
    case "≠":
    case ">":
    case "<":
    case "≥":
    case "≤": {
      const n = Number(v);
      return Number.isFinite(n) ? [n, n - 1, n + 1, n - 0.5, n + 0.5] : [0, 1];
    }
    case "contains":
    case "not contains":
      return [s, `x ${s} x`, "", "none", [v], []];
    case "start with":
      return [s, `${s}x`, `x${s}`, "zz"];
    case "end with":
      return [s, `x${s}`, `${s}x`, "zz"];
    case "in":
    case "not in":
    case "all of": {
      const l = list();
      return [l[0], ...l.slice(1), "__other__", l, []];
    }
    default:
      return ["", "x", null, 0, 1, [], ["x"], true, false];
  }
}

function holds(a: Atom, value: unknown): boolean | undefined {
  try {
    return compare(value, a.comparison_operator, a.value);
  } catch {
    return undefined;
  }
}

/**
 * Values per variable that give every constrained atom its wanted truth; undefined when a variable's
 * atoms contradict (no candidate satisfies them all). Unconstrained atoms take the first candidate.
 */
function concretise(assign: Assignment, atoms: Map<string, Atom>): Record<string, unknown> | undefined {
  const byVar = new Map<string, Array<{ atom: Atom; want?: boolean }>>();
  for (const [k, atom] of atoms) {
    const v = variableOf(atom);
    const l = byVar.get(v) ?? [];
    l.push({ atom, want: assign[k] });
    byVar.set(v, l);
  }
  const values: Record<string, unknown> = {};
  for (const [v, cons] of byVar) {
    const candidates = [...new Set(cons.flatMap((c) => witnesses(c.atom)).map((x) => JSON.stringify(x ?? null)))].map(
      (x) => JSON.parse(x),
    );
    const hit = candidates.find((cand) => cons.every((c) => c.want === undefined || holds(c.atom, cand) === c.want));
    if (hit === undefined) return undefined;
    values[v] = hit;
  }
  return values;
}

function evalWith(f: Formula, atoms: Map<string, Atom>, values: Record<string, unknown>): boolean {
  const assign: Assignment = {};
  for (const [k, a] of atoms) assign[k] = holds(a, values[variableOf(a)]) ?? false;
  const walk = (g: Formula): boolean => {
    if ("atom" in g) return assign[g.atom] ?? false;
    if ("and" in g) return g.and.every(walk);
    if ("or" in g) return g.or.some(walk);
    if ("not" in g) return !walk(g.not);
    return g.const;
  };
  return walk(f);
}

/** Nested artifact values from dotted variables (`order.total` → {order: {total}}). */
function scenarioValues(values: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(values)) {
    const parts = k.split(".");
    let o = out;
    for (const p of parts.slice(0, -1)) {
      if (!o[p] || typeof o[p] !== "object") o[p] = {};
      o = o[p] as Record<string, unknown>;
    }
    o[parts.at(-1)!] = v;
  }
  return out;
}

interface Construct {
  id: string;
  kind: "branch" | "loop";
  condition: ModelCondition;
  decision?: string;
}

function constructsOf(m: SopModel): Construct[] {
  return [
    ...m.branches.map((b) => ({ id: b.id, kind: "branch" as const, condition: b.condition, decision: b.decision })),
    ...m.loops.map((l) => ({ id: l.id, kind: "loop" as const, condition: l.break_condition, decision: l.decision })),
  ];
}

/** The construct implementing a decision: the one that names it, else the unclaimed one testing the most of its artifacts. */
function matchConstructs(m: SopModel, logic: SourceLogic): Map<string, Construct> {
  const cons = constructsOf(m);
  const out = new Map<string, Construct>();
  const claimed = new Set<string>();
  for (const d of logic.decisions) {
    const c = cons.find((x) => x.decision === d.id);
    if (c) {
      out.set(d.id, c);
      claimed.add(c.id);
    }
  }
  for (const d of logic.decisions) {
    if (out.has(d.id)) continue;
    const arts = new Set(d.atoms.map((a) => a.artifact));
    let best: Construct | undefined;
    let bestScore = 0;
    for (const c of cons) {
      if (claimed.has(c.id) || c.decision) continue;
      const ca = new Set(c.condition.conditions.map((a) => a.artifact));
      const inter = [...arts].filter((a) => ca.has(a)).length;
      const score = inter / new Set([...arts, ...ca]).size;
      if (score > bestScore) {
        best = c;
        bestScore = score;
      }
    }
    if (best) {
      out.set(d.id, best);
      claimed.add(best.id);
    }
  }
  return out;
}

export function dryRun(m: SopModel, logic: SourceLogic): DryRunReport {
  const matched = matchConstructs(m, logic);
  const decisions: DecisionRun[] = [];
  const unimplemented: string[] = [];
  for (const d of logic.decisions) {
    const c = matched.get(d.id);
    const src = sourceFormula(d);
    const srcCov = predicateCoverage(src.formula);
    if (!c) {
      unimplemented.push(d.id);
      decisions.push({
        decision: d.id,
        description: d.description,
        scenarios: 0,
        infeasible: 0,
        maskedSource: srcCov.masked,
        maskedCompiled: [],
        unrealisable: [],
        sharedArtifacts: [],
        disagreements: [],
      });
      continue;
    }
    const cmp = conditionFormula(c.condition);
    const cmpCov = predicateCoverage(cmp.formula);
    const universe = new Map([...src.atoms, ...cmp.atoms]);
    // Each atom's pair must be realisable by actual values; when the chosen pair is not (two comparisons on
    // one artifact that cannot be set apart), another pair is tried; with none, the atom is masked in fact.
    const runs: Array<{ values: Record<string, unknown>; witnessOf: string }> = [];
    const unrealisable: string[] = [];
    let infeasible = 0;
    const realise = (cov: ReturnType<typeof predicateCoverage>, side: "SOP" | "compiled") => {
      for (const p of cov.pairs) {
        let ok = false;
        for (const q of cov.alternatives[p.atom] ?? [p]) {
          const vt = concretise(q.whenTrue, universe);
          const vf = concretise(q.whenFalse, universe);
          if (vt && vf) {
            runs.push(
              { values: vt, witnessOf: `${side} atom ${p.atom}` },
              { values: vf, witnessOf: `${side} atom ${p.atom}` },
            );
            ok = true;
            break;
          }
          infeasible++;
        }
        if (!ok) unrealisable.push(`${side}: ${p.atom}`);
      }
    };
    realise(srcCov, "SOP");
    realise(cmpCov, "compiled");
    const seen = new Set<string>();
    let scenarios = 0;
    const dis: Disagreement[] = [];
    for (const r of runs) {
      const values = r.values;
      const key = JSON.stringify(values);
      if (seen.has(key)) continue;
      seen.add(key);
      scenarios++;
      const sv = evalWith(src.formula, src.atoms, values);
      const cv = evalWith(cmp.formula, cmp.atoms, values);
      if (sv !== cv) {
        dis.push({
          decision: d.id,
          construct: c.id,
          scenario: scenarioValues(values),
          source: sv,
          compiled: cv,
          sourceFormula: formatFormula(src.formula),
          compiledFormula: formatFormula(cmp.formula),
          witnessOf: r.witnessOf,
        });
      }
    }
    decisions.push({
      decision: d.id,
      description: d.description,
      construct: c.id,
      scenarios,
      infeasible,
      maskedSource: srcCov.masked,
      maskedCompiled: cmpCov.masked,
      unrealisable,
      sharedArtifacts: [...new Set(d.atoms.map((a) => a.artifact))].filter((a) =>
        c.condition.conditions.some((x) => x.artifact === a),
      ),
      disagreements: dis,
    });
  }
  const used = new Set([...matched.values()].map((c) => c.id));
  const unmatched = constructsOf(m)
    .filter((c) => !used.has(c.id))
    .map((c) => c.id);
  return {
    decisions,
    scenariosRun: decisions.reduce((s, d) => s + d.scenarios, 0),
    disagreements: decisions.flatMap((d) => d.disagreements),
    unimplemented,
    unmatched,
  };
}

/** The dry-run findings as revision feedback for the draft stage. */
export function dryRunFeedback(r: DryRunReport, logic: SourceLogic): string[] {
  const out: string[] = [];
  for (const d of r.decisions) {
    if (d.construct && d.sharedArtifacts.length === 0) {
      const arts = [...new Set(logic.decisions.find((x) => x.id === d.decision)?.atoms.map((a) => a.artifact) ?? [])];
      out.push(
        `"${d.construct}" implements decision "${d.decision}" but tests none of the values it depends on (${arts.join(", ")}); use those artifact names.`,
      );
    }
  }
  for (const d of r.disagreements) {
    out.push(
      `Decision "${d.decision}" is implemented by "${d.construct}", but they disagree: with ${JSON.stringify(d.scenario)} the SOP's rule ${d.sourceFormula} is ${d.source ? "TRUE" : "FALSE"} while the compiled condition ${d.compiledFormula} is ${d.compiled ? "TRUE" : "FALSE"}. Fix the condition (operators, and/or, values) to match the SOP.`,
    );
  }
  for (const id of r.unimplemented) {
    const d = logic.decisions.find((x) => x.id === id);
    out.push(
      `The SOP decision "${id}" (${d?.description ?? ""}) is not implemented by any branch or loop; add one and set its "decision" to "${id}".`,
    );
  }
  for (const d of r.decisions) {
    const compiledOnly = d.unrealisable.filter((u) => u.startsWith("compiled: ")).map((u) => u.slice(10));
    if (compiledOnly.length)
      out.push(
        `In "${d.construct}", the comparisons ${compiledOnly.join("; ")} are implied by others on the same value, so they never decide the outcome; remove or correct them.`,
      );
    if (d.maskedCompiled.length)
      out.push(
        `In "${d.construct}", the comparisons ${d.maskedCompiled.join("; ")} never change the outcome on their own (masked); remove or correct them.`,
      );
  }
  return out;
}
