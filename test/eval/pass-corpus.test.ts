/**
 * The pass-stage pipeline over all 8 models' recorded Chat2Workflow answers: no answer crashes it,
 * the per-model numbers are printed (deterministic pass rate as written and after repair, the
 * paper's figure, agreement with the recorded verdicts for steps 1_1–1_3), and the agreement is
 * held to what was measured so a converter regression shows.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  evaluatePassSuite,
  loadAnswers,
  loadSuite,
  type Outcome13,
  type PassSuiteResult,
  renderPassReport,
} from "../../src/eval/pass.js";
import { corpusDir } from "./corpus.js";

const root = (() => {
  try {
    return join(corpusDir(), "chat2workflow");
  } catch {
    return "";
  }
})();
const has = root !== "" && existsSync(join(root, "model-outputs"));

describe.skipIf(!has)("Chat2Workflow pass stage on recorded answers", () => {
  it("evaluates every answer of the 8 models without crashing", { timeout: 300_000 }, async () => {
    const suite = loadSuite(root);
    const files = readdirSync(join(root, "model-outputs"))
      .filter((f) => f.endsWith(".json"))
      .sort();
    expect(files).toHaveLength(8);
    const results: PassSuiteResult[] = [];
    // Upstream ran every answer it passed on 3 test cases: an independent check of the analyser's rejections.
    const resolved = { clean: [0, 0], rejected: [0, 0] };
    for (const f of files) {
      const { model, records } = loadAnswers(join(root, "model-outputs", f));
      const r = await evaluatePassSuite(suite, records, model, { repair: true });
      expect(r.items).toHaveLength(79);
      expect(renderPassReport(r)).toContain("## By domain");
      results.push(r);
      const raw = JSON.parse(readFileSync(join(root, "model-outputs", f), "utf8")) as Array<Record<string, unknown>>;
      r.items.forEach((it, i) => {
        if (!it.record.recorded?.valid || !it.strict.passDeterministic) return;
        const bucket = it.strict.passAnalyserClean ? resolved.clean : resolved.rejected;
        bucket[0]! += ["test1", "test2", "test3"].filter((t) => raw[i]![t] === true).length;
        bucket[1]! += 3;
      });
    }
    const pct = (n: number, d: number) => `${((100 * n) / d).toFixed(1)}%`.padStart(6);
    const lines = [
      "model                            det.pass  +repair  +analyser(rep)  recorded  paper   agree(1_1–1_3)",
      ...results.map(({ summary: s }) =>
        [
          s.model.padEnd(32),
          pct(s.strict.deterministic, s.total).padStart(8),
          pct(s.repaired!.deterministic, s.total).padStart(8),
          pct(s.repaired!.analyserClean, s.total).padStart(14),
          pct(s.recorded!.passed, s.total).padStart(9),
          `${s.paper!.rate.toFixed(2)}%`.padStart(7),
          `${s.agreement!.agree}/${s.total}`.padStart(10),
        ].join(" "),
      ),
    ];
    const rate = (b: number[]) => b[0]! / b[1]!;
    lines.push(
      `upstream-passed answers, tests resolved upstream: analyser clean ${resolved.clean[0]}/${resolved.clean[1]}, analyser rejects ${resolved.rejected[0]}/${resolved.rejected[1]}`,
    );
    console.log(`\nChat2Workflow pass stage (deterministic; judge skipped)\n${lines.join("\n")}`);
    // Measured 65% vs 12%: what the analyser rejects almost never works when run.
    expect(rate(resolved.rejected)).toBeLessThan(0.25);
    expect(rate(resolved.clean)).toBeGreaterThan(0.5);

    const sum = (f: (r: PassSuiteResult) => number) => results.reduce((a, r) => a + f(r), 0);
    const total = sum((r) => r.summary.total);
    const agree = sum((r) => r.summary.agreement!.agree);
    const m = (a: Outcome13, b: Outcome13) => sum((r) => r.summary.agreement!.matrix[a][b]);
    // step_1_1 (tags + JSON.parse) is the same rule as upstream: exact agreement.
    expect(m("step_1_1", "step_1_1")).toBe(26);
    for (const o of ["step_1_2", "step_1_3", "passed_1_3"] as const) {
      expect(m("step_1_1", o)).toBe(0);
      expect(m(o, "step_1_1")).toBe(0);
    }
    // Measured 584/632 (92.4%); the gap is explained in docs/chat2workflow-results.md.
    expect(agree / total).toBeGreaterThan(0.85);
    for (const { summary: s } of results) {
      expect(s.repaired!.deterministic).toBeGreaterThanOrEqual(s.strict.deterministic);
      expect(s.strict.analyserClean).toBeLessThanOrEqual(s.strict.deterministic);
      expect(s.repairTable!.reduce((a, k) => a + k.failed, 0)).toBe(s.total - s.strict.deterministic);
    }
  });
});
