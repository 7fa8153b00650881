/**
 * Issue 4 "must show": hand-written model answers (test/fixtures/answers/*.txt) with their expected
 * outcome in expected.json. Every repairable answer must come out of the auto-repairs as a valid
 * workflow (converter and analyser without errors) with exactly the expected repair kinds, and must
 * have failed before repair when a repair was expected; every unrepairable one must yield its
 * diagnostic codes.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseAnswer, type RepairKind } from "../../src/authoring/repair/index.js";
import { ALL_COMPACT_TYPES } from "../../src/dsl/compact/index.js";
import { checkAnalyser, checkConvert, checkSelection } from "../../src/eval/pass.js";

const dir = join(import.meta.dirname, "../fixtures/answers");
interface Expected {
  file: string;
  repairable: boolean;
  expectRepairs: RepairKind[];
  expectDiagnostics: string[];
  note?: string;
}
const expected = JSON.parse(readFileSync(join(dir, "expected.json"), "utf8")) as Expected[];

function run(text: string, repair: boolean) {
  const parsed = parseAnswer(text, { repair });
  const conv = parsed.json !== undefined ? checkConvert(parsed.json, "fixture") : undefined;
  const analyser = conv?.workflow ? checkAnalyser(conv.workflow) : undefined;
  const errors = [...parsed.diagnostics, ...(conv?.diagnostics ?? []), ...(analyser?.diagnostics ?? [])].filter(
    (d) => d.severity === "error",
  );
  return { parsed, conv, analyser, errors, kinds: [...new Set(parsed.repairs.map((r) => r.kind))].sort() };
}

describe("hand-written model answers", () => {
  it("has at least 40 fixtures, each listed once, covering the compact vocabulary", () => {
    const files = readdirSync(dir)
      .filter((f) => f.endsWith(".txt"))
      .sort();
    expect(files.length).toBeGreaterThanOrEqual(40);
    expect(expected.map((e) => e.file).sort()).toEqual(files);
    const used = new Set<string>();
    for (const e of expected) {
      const json = run(readFileSync(join(dir, e.file), "utf8"), true).parsed.compact;
      for (const n of json?.nodes_info ?? []) used.add(n.type);
    }
    // `answer` belongs to chatflows, which the Chat2Workflow format does not produce.
    for (const t of ALL_COMPACT_TYPES.filter((t) => t !== "answer")) expect(used, `no fixture uses ${t}`).toContain(t);
    expect(expected.filter((e) => e.repairable).length).toBeGreaterThanOrEqual(30);
    expect(expected.filter((e) => !e.repairable).length).toBeGreaterThanOrEqual(8);
  });

  for (const e of expected) {
    it(`${e.file}: ${e.repairable ? "repaired into a valid workflow" : `rejected with ${e.expectDiagnostics.join(", ")}`}`, () => {
      const text = readFileSync(join(dir, e.file), "utf8");
      const r = run(text, true);
      expect(r.kinds).toEqual([...e.expectRepairs].sort());
      if (e.repairable) {
        expect(r.errors, r.errors.map((d) => `${d.code}: ${d.message}`).join("\n")).toEqual([]);
        expect(r.conv?.ok).toBe(true);
        expect(checkSelection(r.parsed.sections.nodeSelection, r.parsed.json, []).ok).toBe(true);
        if (e.expectRepairs.length) {
          // The repair was needed: read strictly, the answer fails somewhere.
          const strict = run(text, false);
          const selectionOk =
            strict.parsed.json !== undefined &&
            checkSelection(strict.parsed.sections.nodeSelection, strict.parsed.json, []).ok;
          expect(strict.errors.length > 0 || !selectionOk).toBe(true);
        }
      } else {
        const codes = r.errors.map((d) => d.code);
        for (const c of e.expectDiagnostics) expect(codes).toContain(c);
        expect(r.errors.length).toBeGreaterThan(0);
      }
    });
  }
});
