import { describe, expect, it } from "vitest";
import { type Assignment, evaluate, type Formula, predicateCoverage } from "../../src/compile/validate/coverage.js";

const a: Formula = { atom: "a" };
const b: Formula = { atom: "b" };
const c: Formula = { atom: "c" };
const d: Formula = { atom: "d" };

/** Every pair really shows independence: only its atom differs, and the outcome flips. */
function checkPairs(f: Formula) {
  const cov = predicateCoverage(f);
  for (const p of cov.pairs) {
    const differing = Object.keys(p.whenTrue).filter((k) => p.whenTrue[k] !== p.whenFalse[k]);
    expect(differing).toEqual([p.atom]);
    expect(p.whenTrue[p.atom]).toBe(true);
    expect(evaluate(f, p.whenTrue)).toBe(p.outcomeTrue);
    expect(evaluate(f, p.whenFalse)).toBe(p.outcomeFalse);
    expect(p.outcomeTrue).not.toBe(p.outcomeFalse);
    // Both assignments of the pair are among the scenarios a dry run executes.
    const keys = cov.scenarios.map((s) => JSON.stringify(s));
    expect(keys).toContain(JSON.stringify(p.whenTrue));
    expect(keys).toContain(JSON.stringify(p.whenFalse));
  }
  return cov;
}

describe("predicate coverage (unique-cause MC/DC)", () => {
  it("a pure and of n atoms needs n+1 scenarios", () => {
    const cov = checkPairs({ and: [a, b, c] });
    expect(cov.pairs.map((p) => p.atom)).toEqual(["a", "b", "c"]);
    expect(cov.masked).toEqual([]);
    expect(cov.scenarios).toHaveLength(4);
    expect(cov.scenarios).toContainEqual({ a: true, b: true, c: true });
  });

  it("a pure or of n atoms needs n+1 scenarios, sharing the all-false one", () => {
    const cov = checkPairs({ or: [a, b, c, d] });
    expect(cov.scenarios).toHaveLength(5);
    expect(cov.scenarios).toContainEqual({ a: false, b: false, c: false, d: false });
  });

  it("nested and/or/not: every atom independently affects the outcome", () => {
    // (a and not b) or (c and (d or not a))
    const f: Formula = { or: [{ and: [a, { not: b }] }, { and: [c, { or: [d, { not: a }] }] }] };
    const cov = checkPairs(f);
    expect(cov.masked).toEqual([]);
    expect(cov.pairs.map((p) => p.atom).sort()).toEqual(["a", "b", "c", "d"]);
    // Minimal-ish: at most 2n scenarios, and at least n+1 (the lower bound for n atoms).
    expect(cov.scenarios.length).toBeGreaterThanOrEqual(5);
    expect(cov.scenarios.length).toBeLessThanOrEqual(8);
    expect(cov.exhaustive).toBe(true);
  });

  it("not flips the direction of the pair, not its existence", () => {
    const cov = checkPairs({ not: { and: [a, b] } });
    expect(cov.pairs.find((p) => p.atom === "a")).toMatchObject({ outcomeTrue: false, outcomeFalse: true });
  });

  it("reports masked atoms: b in a or (a and b), and c in (a and c) or (a and not c) ", () => {
    const cov1 = checkPairs({ or: [a, { and: [a, b] }] });
    expect(cov1.masked).toEqual(["b"]);
    expect(cov1.pairs.map((p) => p.atom)).toEqual(["a"]);
    const cov2 = checkPairs({ or: [{ and: [a, c] }, { and: [a, { not: c }] }] });
    expect(cov2.masked).toEqual(["c"]);
  });

  it("an atom used twice is one variable (a xor-like formula still covers it)", () => {
    // (a and not b) or (not a and b): both atoms are independent everywhere.
    const cov = checkPairs({ or: [{ and: [a, { not: b }] }, { and: [{ not: a }, b] }] });
    expect(cov.masked).toEqual([]);
    expect(cov.scenarios.length).toBeLessThanOrEqual(4);
  });

  it("constants mask everything under an absorbing constant", () => {
    const cov = checkPairs({ or: [{ const: true }, a] });
    expect(cov.masked).toEqual(["a"]);
  });

  it("beyond the exhaustive limit, pairs are found by seeded sampling", () => {
    const atoms = Array.from({ length: 18 }, (_, i) => ({ atom: `x${i}` }) as Formula);
    // (x0 or x1) and (x2 or x3) and ... : each atom matters when its partner is false and the rest hold.
    const f: Formula = { and: Array.from({ length: 9 }, (_, i) => ({ or: [atoms[2 * i]!, atoms[2 * i + 1]!] })) };
    const cov = checkPairs(f);
    expect(cov.exhaustive).toBe(false);
    expect(cov.masked).toEqual([]);
    expect(cov.pairs).toHaveLength(18);
  });

  it("evaluate rejects an assignment missing an atom with a typed error", () => {
    expect(() => evaluate({ and: [a, b] }, { a: true } as Assignment)).toThrow(/atom "b"/);
  });
});
