/** pass^k (exact), executor consistency, and Chat2Workflow resolve-stage helpers. */
import { describe, expect, it } from "vitest";
import {
  binomial,
  instanceConsistency,
  isSuccess,
  meanConsistency,
  passAtKTask,
  passHatK,
  passHatKTask,
  ratioToNumber,
} from "../../src/eval/metrics/passk.js";
import {
  buildResolveJudgePrompt,
  checkFileOutputs,
  isEmptyOutputs,
  parseResolveJudge,
  resolveRate,
  resolveTestRun,
} from "../../src/eval/metrics/resolve.js";
import { readCorpusJson } from "./corpus.js";

describe("pass^k", () => {
  it("worked example: n = 4 trials, successes A=4, B=2, C=0", () => {
    // pass^1 = (1 + 2/4 + 0)/3 = 1/2
    // pass^2 = (1 + C(2,2)/C(4,2) + 0)/3 = (1 + 1/6)/3 = 7/18
    // pass^3 = pass^4 = (1 + 0 + 0)/3 = 1/3
    const recs = [];
    for (let t = 0; t < 4; t++) {
      recs.push({ taskId: "A", trial: t, reward: t === 0 ? 0.9999995 : 1 }); // within 1e-6 counts
      recs.push({ taskId: "B", trial: t, reward: t < 2 ? 1 : 0.99 });
      recs.push({ taskId: "C", trial: t, success: false });
    }
    const r = passHatK(recs);
    expect(r.n).toBe(4);
    expect(r.curve[0]).toBeCloseTo(1 / 2, 15);
    expect(r.curve[1]).toBeCloseTo(7 / 18, 15);
    expect(r.curve[2]).toBeCloseTo(1 / 3, 15);
    expect(r.curve[3]).toBeCloseTo(1 / 3, 15);
  });

  it("n comes from distinct trial ids even when a task has fewer trials (as upstream)", () => {
    const r = passHatK([
      { taskId: "A", trial: 0, reward: 1 },
      { taskId: "A", trial: 1, reward: 1 },
      { taskId: "B", trial: 0, reward: 1 },
    ]);
    // n = 2; A: c=2 → 1; B: c=1 → pass^1 = 1/2, pass^2 = 0 → curve [3/4, 1/2]
    expect(r.curve).toEqual([0.75, 0.5]);
  });

  it("success bounds as τ-bench writes them: 0.999999 and 1.000001 succeed, 0.9999989 does not", () => {
    // |0.999999 − 1| is 1.0000000000287557e-6 in doubles, so an |r − 1| ≤ 1e-6 test would fail it.
    expect(isSuccess({ taskId: "A", trial: 0, reward: 0.999999 })).toBe(true);
    expect(isSuccess({ taskId: "A", trial: 0, reward: 1.000001 })).toBe(true);
    expect(isSuccess({ taskId: "A", trial: 0, reward: 0.9999989 })).toBe(false);
    const r = passHatK([
      { taskId: "A", trial: 0, reward: 0.999999 },
      { taskId: "A", trial: 1, reward: 1 },
    ]);
    expect(r.curve).toEqual([1, 1]);
  });

  it("duplicate (task, trial) rows are capped at n and reported", () => {
    const r = passHatK([
      { taskId: "A", trial: 0, reward: 1 },
      { taskId: "A", trial: 0, reward: 1 },
      { taskId: "A", trial: 0, reward: 1 },
      { taskId: "A", trial: 1, reward: 1 },
      { taskId: "B", trial: 0, reward: 0 },
      { taskId: "B", trial: 1, reward: 1 },
    ]);
    expect(r.duplicates).toEqual([{ taskId: "A", trial: "0", rows: 3 }]);
    // A: c = 4 capped to n = 2 → 1; B: c = 1 → pass^1 = ½, pass^2 = 0.
    expect(r.curve).toEqual([0.75, 0.5]);
    expect(passHatK([{ taskId: 1, trial: 0, reward: 1 }]).duplicates).toEqual([]);
  });

  it("exact for large n: C(n−1,k)/C(n,k) = (n−k)/n and C(200,100)/C(300,100) vs product form", () => {
    expect(passHatKTask(999, 1000, 500)).toBe(0.5);
    expect(binomial(60, 30)).toBe(118264581564861424n);
    let prod = 1;
    for (let i = 0; i < 100; i++) prod *= (200 - i) / (300 - i);
    const exact = passHatKTask(200, 300, 100);
    expect(Math.abs(exact - prod) / exact).toBeLessThan(1e-12);
    expect(exact).toBeGreaterThan(0); // C(300,100) ≈ 4e81 is far beyond 2^53: only BigInt keeps it exact
    expect(ratioToNumber(1n, 3n)).toBe(1 / 3);
    expect(passHatKTask(1, 5, 2)).toBe(0);
  });

  it("pass@k contrast and typed errors", () => {
    expect(passAtKTask(2, 4, 2)).toBeCloseTo(5 / 6, 15); // 1 − C(2,2)/C(4,2)
    expect(() => passHatKTask(5, 4, 1)).toThrow(expect.objectContaining({ code: "metric.invalid_argument" }));
    expect(() => passHatKTask(1, 4, 0)).toThrow(expect.objectContaining({ code: "metric.invalid_argument" }));
    expect(() => passHatK([{ taskId: 1, trial: 0 }])).toThrow(
      expect.objectContaining({ code: "metric.invalid_argument" }),
    );
    expect(passHatK([]).curve).toEqual([]);
  });

  it("per-instance consistency across executors", () => {
    // rates X = 1, Y = 1/2 → agree = 1·½ + 0·½ = ½
    const c = instanceConsistency([
      { executor: "X", outcomes: [true, true] },
      { executor: "Y", outcomes: [true, false] },
    ]);
    expect(c).toMatchObject({
      agreement: 0.5,
      allSucceed: false,
      allFail: false,
      spread: 0.5,
      rates: { X: 1, Y: 0.5 },
    });
    // rates 1, 1, 0 → pairs 1, 0, 0 → 1/3
    const three = [
      { executor: "a", outcomes: [true] },
      { executor: "b", outcomes: [true] },
      { executor: "c", outcomes: [false] },
    ];
    expect(instanceConsistency(three).agreement).toBeCloseTo(1 / 3, 15);
    expect(
      meanConsistency([
        three,
        [
          { executor: "a", outcomes: [false] },
          { executor: "b", outcomes: [false] },
        ],
      ]),
    ).toBeCloseTo(2 / 3, 15);
    expect(() => instanceConsistency([{ executor: "a", outcomes: [true] }])).toThrow(
      expect.objectContaining({ code: "metric.invalid_argument" }),
    );
  });
});

const file = (ext: string, name = `out${ext}`) => ({
  dify_model_identity: "__dify__file__",
  type: "document",
  filename: name,
  extension: ext,
});

describe("resolve-rate helpers", () => {
  const required = readCorpusJson<Record<string, Record<string, string>>>(
    "chat2workflow/dataset/check_resolve_stage.json",
  );

  it("extension checks against the staged check_resolve_stage.json entries", () => {
    expect(Object.keys(required)).toHaveLength(37);
    const exam = required.ExamQuestion_3!; // {teacher_ver: ".pdf", student_ver: ".pdf"}
    expect(checkFileOutputs({ teacher_ver: file(".pdf"), student_ver: file("PDF") }, exam).ok).toBe(true);
    const bad = checkFileOutputs({ teacher_ver: file(".docx"), student_ver: "a text" }, exam);
    expect(bad.failures).toEqual([
      { output: "teacher_ver", reason: "wrong_extension", expected: ".pdf", actual: [".docx"] },
      { output: "student_ver", reason: "not_a_file", expected: ".pdf" },
    ]);
    const resumes = required.ResumeScreening_1!;
    const name = Object.keys(resumes)[0]!;
    expect(
      checkFileOutputs(
        { ...Object.fromEntries(Object.keys(resumes).map((k) => [k, [file(".pdf"), file(".pdf")]])) },
        resumes,
      ).ok,
    ).toBe(true);
    expect(
      checkFileOutputs({ ...Object.fromEntries(Object.keys(resumes).map((k) => [k, []])) }, resumes).failures[0],
    ).toMatchObject({
      output: name,
      reason: "empty_file_list",
    });
    expect(checkFileOutputs({}, exam).failures.map((f) => f.reason)).toEqual(["missing", "missing"]);
    // A file without `extension` falls back to its filename's suffix.
    expect(
      checkFileOutputs({ md: { dify_model_identity: "__dify__file__", filename: "notes.MD" } }, { md: ".md" }).ok,
    ).toBe(true);
  });

  it("empty-output check", () => {
    expect(isEmptyOutputs(null)).toBe(true);
    expect(isEmptyOutputs({})).toBe(true);
    expect(isEmptyOutputs({ a: "" })).toBe(false);
  });

  it("judge verdict parsing follows upstream: text after the last <result>, fails on any 'false'", () => {
    expect(parseResolveJudge("<reason>fine</reason><result>true</result>")).toEqual({
      pass: true,
      reason: "fine",
      parsed: true,
    });
    expect(parseResolveJudge("<reason>no</reason>\n<result> False </result>").pass).toBe(false);
    expect(parseResolveJudge("<result>false</result> on reflection <result>true</result>").pass).toBe(true);
    expect(parseResolveJudge("<result>true</result> (not false)").pass).toBe(false);
    expect(parseResolveJudge("looks good")).toMatchObject({ pass: false, parsed: false });
  });

  it("resolveTestRun: deterministic stages first, judge only for text outputs", async () => {
    const prompts: string[] = [];
    const judge = async ({ prompt }: { prompt: string }) => {
      prompts.push(prompt);
      return "<reason>matches the reference</reason><result>true</result>";
    };
    const base = { queries: ["Make a summary", "Also output a PDF"], inputs: { topic: "cats", doc: file(".pdf") } };
    expect((await resolveTestRun({ ...base, error: new Error("HTTP 500"), outputs: {} }, judge)).stage).toBe("error");
    expect((await resolveTestRun({ ...base, outputs: {} }, judge)).stage).toBe("empty_outputs");
    expect(
      (await resolveTestRun({ ...base, outputs: { pdf: file(".png") }, requiredFiles: { pdf: ".pdf" } }, judge)).stage,
    ).toBe("file_check");
    expect(
      await resolveTestRun({ ...base, outputs: { pdf: file(".pdf") }, requiredFiles: { pdf: ".pdf" } }, judge),
    ).toMatchObject({
      pass: true,
      stage: "files_only",
    });
    expect(prompts).toHaveLength(0);
    const r = await resolveTestRun(
      {
        ...base,
        outputs: { pdf: file(".pdf"), summary: "Cats sleep a lot." },
        requiredFiles: { pdf: ".pdf" },
        referenceAnswer: "cats sleep",
      },
      judge,
    );
    expect(r).toMatchObject({ pass: true, stage: "judge", reason: "matches the reference" });
    expect(prompts[0]).toContain("Round 1: Make a summary\nRound 2: Also output a PDF");
    expect(prompts[0]).toContain("summary: Cats sleep a lot.");
    expect(prompts[0]).toContain("topic: cats");
    expect(prompts[0]).not.toContain("doc:"); // file inputs and outputs are not shown to the judge
    expect(prompts[0]).not.toContain("pdf:");
    expect(buildResolveJudgePrompt({ queries: ["q"], inputs: {}, outputs: { n: 3 } })).toContain("n: 3");
  });

  it("resolve rate = passing / all tests", () => {
    expect(resolveRate([true, false, true], 237)).toBe(2 / 237);
    expect(resolveRate([])).toBe(0);
    expect(() => resolveRate([true, true], 1)).toThrow(expect.objectContaining({ code: "metric.invalid_argument" }));
  });
});
