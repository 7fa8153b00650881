/** FlowScout TC and ES worked examples, judge-output parsing, coefficient of variation. */
import { describe, expect, it } from "vitest";
import { buildEsPrompt, esFromDistributions, executionScore, parseEsJudgeOutput } from "../../src/eval/metrics/es.js";
import { coefficientOfVariation } from "../../src/eval/metrics/stats.js";
import {
  canonicalArguments,
  canonicalJson,
  lcsLength,
  meanToolCorrectness,
  type ToolCallRecord,
  toolCorrectness,
} from "../../src/eval/metrics/tc.js";
import { readCorpusJson } from "./corpus.js";

const chains = readCorpusJson<Array<{ source: string; calls: ToolCallRecord[] }>>("toolbench/derived_call_chains.json");

describe("TC = |LCS over (name, canonical args)| / max(K, K̂)", () => {
  // Staged ToolBench answers G1/10 and G1/11 (same query family):
  //   ref  = [transitaires{}, transitaire{is_id:"ACT_AGENCE_CALEDONIENNE_DE_TRANSIT"}, Finish{give_answer,…}]
  //   pred = [transitaires{}, transitaire{is_id:"Gondrand"}, transitaires{}, Finish{give_answer,…}]
  const ref = chains[0]!.calls;
  const pred = chains[1]!.calls;

  it("Finish excluded (default): LCS = 1 (transitaires{}), K = 2, K̂ = 3 → 1/3", () => {
    expect(toolCorrectness(ref, pred)).toEqual({ tc: 1 / 3, lcs: 1, k: 2, kHat: 3 });
  });

  it("Finish by return_type: LCS = 2 (transitaires{}, Finish{give_answer}), max(3,4) → 1/2", () => {
    expect(toolCorrectness(ref, pred, { finish: "return-type" }).tc).toBe(0.5);
  });

  it("Finish compared fully: final answers differ → LCS 1 / 4", () => {
    expect(toolCorrectness(ref, pred, { finish: "keep" }).tc).toBe(0.25);
  });

  it("every staged answer against itself is 1; empty/empty = 1; one side empty = 0", () => {
    for (const c of chains) expect(toolCorrectness(c.calls, c.calls).tc, c.source).toBe(1);
    expect(toolCorrectness([], []).tc).toBe(1);
    expect(toolCorrectness([{ name: "Finish", arguments: {} }], []).tc).toBe(1); // only Finish → both empty after exclusion
    expect(toolCorrectness([{ name: "a" }], []).tc).toBe(0);
    expect(toolCorrectness([], [{ name: "a" }]).tc).toBe(0);
  });

  it("argument equality: key order ignored, JSON strings parsed, no type coercion", () => {
    const a = { name: "search", arguments: { q: "x", opts: { limit: 5, lang: "en" } } };
    const b = { name: "search", arguments: '{"opts": {"lang": "en", "limit": 5.0}, "q": "x"}' };
    const c = { name: "search", arguments: { q: "x", opts: { limit: "5", lang: "en" } } };
    expect(toolCorrectness([a], [b]).tc).toBe(1);
    expect(toolCorrectness([a], [c]).tc).toBe(0);
    expect(toolCorrectness([{ name: "f" }], [{ name: "f", arguments: "" }]).tc).toBe(1);
    expect(toolCorrectness([{ name: "f", arguments: "not json" }], [{ name: "f", arguments: "not json" }]).tc).toBe(1);
    expect(toolCorrectness([{ name: "F" }], [{ name: "f" }]).tc).toBe(0);
    expect(toolCorrectness([{ name: "F" }], [{ name: "f" }], { lowercaseNames: true }).tc).toBe(1);
    expect(canonicalJson({ b: [2, { d: 1, c: 0 }], a: null })).toBe('{"a":null,"b":[2,{"c":0,"d":1}]}');
    expect(canonicalArguments(null)).toBe("{}");
  });

  it("mean over tasks, LCS by hand and typed errors", () => {
    // tasks: 1/3 (above) and 1 → mean 2/3
    expect(
      meanToolCorrectness([
        { reference: ref, predicted: pred },
        { reference: ref, predicted: ref },
      ]).mean,
    ).toBeCloseTo(2 / 3, 15);
    // LCS("ABCBDAB","BDCABA") = 4 (BCBA)
    expect(lcsLength([..."ABCBDAB"], [..."BDCABA"])).toBe(4);
    expect(() => toolCorrectness([{ name: 3 as unknown as string }], [])).toThrow(
      expect.objectContaining({ code: "metric.invalid_argument" }),
    );
  });
});

describe("ES judge parsing and scoring", () => {
  it("trailing JSON after reasoning: ratings 5,4,5,3 → (1 + .75 + 1 + .5)/4 = 0.8125", () => {
    const reply =
      'Correctness is fine though I have thoughts {like this}.\n{"correctness": 5, "completeness": 4, "relevance": 5, "clarity": 3}';
    const p = parseEsJudgeOutput(reply);
    expect(p.raw).toEqual({ correctness: 5, completeness: 4, relevance: 5, clarity: 3 });
    expect(p.unit).toEqual({ correctness: 1, completeness: 0.75, relevance: 1, clarity: 0.5 });
  });

  it("repairs fenced, single-quoted, trailing-comma JSON with odd key case and nested scores", () => {
    const reply = "```json\n{'Correctness': {'score': 4}, 'COMPLETENESS': '3', 'relevance': '5/5', 'clarity': 2,}\n```";
    expect(parseEsJudgeOutput(reply).raw).toEqual({ correctness: 4, completeness: 3, relevance: 5, clarity: 2 });
  });

  it("falls back to 'Dimension: n' lines; x/y is a rating on a 1–y scale", () => {
    const reply = "Correctness: 4/5\n**Completeness** - 3\nRelevance = 5\nClarity score: 8/10";
    const p = parseEsJudgeOutput(reply);
    // 4/5 → (4−1)/4 = .75; 8/10 → (8−1)/9 = 7/9
    expect(p.unit).toEqual({ correctness: 0.75, completeness: 0.5, relevance: 1, clarity: 7 / 9 });
  });

  it("fractions scale consistently: 3/5 = 3, 6/10 = 5/9, 1/10 = 1/5 = 0, higher never scores lower", () => {
    const unit = (r: string) =>
      parseEsJudgeOutput(`{"correctness": "${r}", "completeness": 3, "relevance": 3, "clarity": 3}`).unit.correctness;
    expect(unit("3/5")).toBe(unit("3"));
    expect(unit("3/5")).toBe(0.5);
    expect(unit("6/10")).toBeCloseTo(5 / 9, 15);
    expect(unit("1/10")).toBe(0);
    expect(unit("1/10")).toBe(unit("1/5"));
    expect(unit("10/10")).toBe(1);
    const tenths = Array.from({ length: 10 }, (_, i) => unit(`${i + 1}/10`));
    for (let i = 1; i < tenths.length; i++) expect(tenths[i]!).toBeGreaterThan(tenths[i - 1]!);
    expect(() => unit("0/10")).toThrow(expect.objectContaining({ code: "metric.judge_output_unparseable" }));
    expect(() => unit("4/1")).toThrow(expect.objectContaining({ code: "metric.judge_output_unparseable" }));
  });

  it("missing or out-of-range ratings are typed errors naming the dimension", () => {
    expect(() => parseEsJudgeOutput('{"correctness": 4, "completeness": 4, "relevance": 4}')).toThrow(
      expect.objectContaining({
        code: "metric.judge_output_unparseable",
        details: expect.objectContaining({ field: "clarity" }),
      }),
    );
    expect(() => parseEsJudgeOutput('{"correctness": 7, "completeness": 4, "relevance": 4, "clarity": 4}')).toThrow(
      expect.objectContaining({ code: "metric.judge_output_unparseable" }),
    );
  });

  it("executionScore renders the prompt file and averages samples", async () => {
    const replies = [
      '{"correctness": 5, "completeness": 5, "relevance": 5, "clarity": 5}',
      '{"correctness": 3, "completeness": 1, "relevance": 5, "clarity": 5}',
    ];
    const prompts: string[] = [];
    const judge = async ({ prompt }: { prompt: string }) => {
      prompts.push(prompt);
      return replies[prompts.length - 1]!;
    };
    const r = await executionScore(judge, { task: "Sum 2+2", output: "4", reference: "4" }, { samples: 2 });
    // correctness (1 + .5)/2 = .75, completeness (1 + 0)/2 = .5, relevance 1, clarity 1 → ES = 3.25/4
    expect(r.dimensions).toEqual({ correctness: 0.75, completeness: 0.5, relevance: 1, clarity: 1 });
    expect(r.es).toBe(0.8125);
    expect(prompts[0]).toContain("<task>\nSum 2+2\n</task>");
    expect(prompts[0]).not.toMatch(/\{\{\w+\}\}/);
    expect(buildEsPrompt({ task: "{{output}}", output: "x" })).toContain("<task>\n{{output}}\n</task>"); // no re-expansion
  });

  it("G-Eval probability weighting", () => {
    // correctness: p(5)=.4, p(4)=.4, junk token ignored, renormalised over .8 → EV 4.5 → .875; others all 3 → .5
    const r = esFromDistributions({
      correctness: { "5": 0.4, "4": 0.4, A: 0.2 },
      completeness: { "3": 1 },
      relevance: { "3": 0.5 },
      clarity: { " 3": 1 },
    });
    expect(r.dimensions.correctness).toBeCloseTo(0.875, 15);
    expect(r.es).toBeCloseTo((0.875 + 1.5) / 4, 15);
  });

  it("coefficient of variation of ES over repeated runs", () => {
    // mean .7, sample std √((.01+.01)/1) = .141421… → cv = .2020305…
    expect(coefficientOfVariation([0.8, 0.6])).toBeCloseTo(Math.sqrt(0.02) / 0.7, 12);
    expect(coefficientOfVariation([0.5])).toBe(0);
    expect(coefficientOfVariation([0, 0])).toBeNull();
    expect(coefficientOfVariation([])).toBeNull();
  });
});
