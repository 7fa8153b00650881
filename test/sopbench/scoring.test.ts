import { describe, expect, it } from "vitest";
import {
  aggregate,
  formatTaskInputs,
  lenientEqual,
  loadDomain,
  normalise,
  scoreDomain,
  scoreDomains,
  scoreRow,
  strictEqual,
} from "../../src/eval/sopbench/index.js";

describe("strict normalised equality", () => {
  it("trims, case-folds, collapses whitespace and separators", () => {
    expect(normalise("  Hazard   Class_A ")).toBe("hazard class a");
    expect(strictEqual("pending_action", "PENDING_ACTION")).toBe(true);
    expect(strictEqual("Fulfill-Immediately", "fulfill_immediately")).toBe(true);
    expect(strictEqual("Account Closure", "Permanent Account Closure")).toBe(false);
    expect(strictEqual("A", "Hazard Class A")).toBe(false);
  });
  it("compares numbers numerically and booleans by meaning", () => {
    expect(strictEqual("15", 15)).toBe(true);
    expect(strictEqual(15.0000000000001, 15)).toBe(true);
    expect(strictEqual("15.5", 15)).toBe(false);
    expect(strictEqual("True", true)).toBe(true);
    expect(strictEqual("yes", true)).toBe(true);
    expect(strictEqual(false, "False")).toBe(true);
    expect(strictEqual("maybe", true)).toBe(false);
  });
  it("treats null-likes as equal only to each other", () => {
    expect(strictEqual("", null)).toBe(true);
    expect(strictEqual("N/A", "none")).toBe(true);
    expect(strictEqual("", "approve")).toBe(false);
  });
});

describe("lenient SOP-Bench comparator", () => {
  it("accepts substrings either way, as upstream does", () => {
    expect(lenientEqual("Account Closure", "Permanent Account Closure")).toBe(true);
    expect(lenientEqual("hazard class b", "a")).toBe(true);
    expect(lenientEqual("fulfill-immediately", "fulfill_immediately")).toBe(true);
    expect(lenientEqual("No Action", "Warning Issued")).toBe(false);
    expect(lenientEqual("", "approve")).toBe(false);
    expect(lenientEqual("nan", null)).toBe(true);
  });
});

describe("row and domain scores", () => {
  it("needs every field; strict keys match case- and separator-insensitively", () => {
    const r = scoreRow(
      "t1",
      { "final status": true, hazard_class: "Hazard Class C" },
      { "Final Status": "True", Hazard_Class: "hazard class c" },
    );
    expect(r).toMatchObject({ strict: true, lenient: true });
    const partial = scoreRow("t2", { a: "x", b: "y" }, { a: "x" });
    expect(partial.strict).toBe(false);
    expect(partial.fields.a?.strict).toBe(true);
    const errored = scoreRow("t3", { a: "x" }, undefined, "boom");
    expect(errored).toMatchObject({ strict: false, lenient: false, error: "boom" });
    const agg = aggregate("d", [r, partial, errored]);
    expect(agg).toMatchObject({ n: 3, strictCorrect: 1, lenientCorrect: 1, errors: 1, perField: { a: 1, b: 0 } });
    expect(agg.strict).toBeCloseTo(1 / 3);
  });

  it("lenient finds fields as SOP-Bench does: case-insensitive keys only, null predictions missing", () => {
    // Separators in a key are not normalised upstream: HazardClass is not hazard_class (strict still finds it).
    const sep = scoreRow("t1", { hazard_class: "C" }, { HazardClass: "C" });
    expect(sep).toMatchObject({ strict: true, lenient: false });
    // A null prediction is "not found" upstream, even when the label is null-like.
    const nul = scoreRow("t2", { reason: null, status: "ok" }, { reason: null, status: "ok" });
    expect(nul).toMatchObject({ strict: true, lenient: false });
    // A null-like string still matches a null-like label.
    expect(scoreRow("t3", { reason: "N/A" }, { reason: "none" })).toMatchObject({ strict: true, lenient: true });
    // The first key equal ignoring case wins; a `decisions` object is read instead of the prediction.
    expect(scoreRow("t4", { status: "ok" }, { Status: "ok", STATUS: "bad" }).lenient).toBe(true);
    expect(scoreRow("t5", { status: "ok" }, { decisions: { status: "ok" }, status: "bad" }).lenient).toBe(true);
    // Substring containment per field, as before.
    expect(scoreRow("t6", { action: "Account Closure" }, { action: "permanent account closure" }).lenient).toBe(true);
  });

  it("scoreDomain runs a solver on every task without showing it the labels", async () => {
    const seen: string[] = [];
    const s = await scoreDomain("order_fulfillment", async (task) => {
      seen.push(...Object.keys(task.inputs));
      if (task.index === 0) throw new Error("solver crashed");
      return { expected_output: task.index % 2 ? "fulfill_immediately" : "Fulfill Delayed" };
    });
    expect(s.n).toBe(30);
    expect(s.errors).toBe(1);
    expect(seen).not.toContain("expected_output");
    expect(s.rows[0]?.error).toBe("solver crashed");
    expect(s.strictCorrect).toBeGreaterThan(0);
    const limited = await scoreDomain("order_fulfillment", async () => ({}), { limit: 5 });
    expect(limited).toMatchObject({ n: 5, strictCorrect: 0 });
  });
});

describe("multi-domain reports and task rendering", () => {
  it("scoreDomains attaches ceilings", async () => {
    const [of, kyb] = await scoreDomains(
      {
        order_fulfillment: async () => ({ expected_output: "backorder" }),
        know_your_business: async () => ({ escalation_status: "approve" }),
      },
      { limit: 10 },
    );
    expect(of).toMatchObject({ domain: "order_fulfillment", n: 10, ceiling: 26 });
    expect(kyb?.ceiling).toBeUndefined();
  });

  it("formats inputs as the original prompt's key: value lines", () => {
    const t = loadDomain("dangerous_goods").tasks[0];
    if (!t) throw new Error("no task");
    expect(formatTaskInputs(t).split("\n")[0]).toBe("product_id: P1_3191");
    const v2 = loadDomain("know_your_business").tasks[0];
    if (!v2) throw new Error("no task");
    expect(formatTaskInputs(v2)).toContain("bank_account_number: 1234567");
    expect(formatTaskInputs(v2)).toContain("ubo_list: [{'name': 'S Wilson', 'id': 'ID204', 'ownership': 100.0}]");
  });
});
