import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseAnswer } from "../../src/authoring/repair/index.js";
import {
  buildPassJudgePrompt,
  checkConvert,
  checkFormat,
  checkSelection,
  checkVariables,
  createLlmPassJudge,
  evaluateAnswer,
  evaluatePassSuite,
  type Instruction,
  PassEvalError,
  parseAnswerRecords,
  parsePassJudgeReply,
  reassembleAnswer,
  renderPassReport,
  type Suite,
} from "../../src/eval/pass.js";
import { createLlmService } from "../../src/llm/index.js";
import { type ReplayServer, reply, startReplayServer } from "../support/replay-server.js";

const wf = (nodes: unknown[], edges: unknown[]) => JSON.stringify({ nodes_info: nodes, edges });
const answer = (sel: string, json: string, dp = "Read the paper, answer the question.") =>
  `<node_selection>${sel}</node_selection>\n<design_principle>${dp}</design_principle>\n<workflow>${json}</workflow>`;
const paperQa = wf(
  [
    {
      id: "1",
      type: "start",
      param: {
        variables: [
          ["paper", "file"],
          ["question", "string"],
        ],
      },
    },
    { id: "2", type: "document-extractor", param: { variable_selector: ["paper", "1"] } },
    {
      id: "3",
      type: "llm",
      param: { system: "Answer from the paper.", user: "{{#'2'.text#}}\n\nQ: {{#'1'.question#}}" },
    },
    { id: "4", type: "end", param: { outputs: [["answer", ["text", "3"]]] } },
  ],
  [
    ["1", 0, "2"],
    ["2", 0, "3"],
    ["3", 0, "4"],
  ],
);
const ins: Instruction = {
  key: "PaperQA_1",
  task: "PaperQA",
  round: 1,
  domain: "Research",
  query: "answer questions about a paper",
  check: { input_var: ["paper", "question"], output_var: ["answer"], related_nodes: ["llm", "document-extractor"] },
};
const SEL = "Start, Document Extractor, LLM, End";

describe("step_1_1 format", () => {
  it("passes three tags with JSON, fails a missing tag or broken JSON", () => {
    expect(checkFormat(parseAnswer(answer(SEL, paperQa))).ok).toBe(true);
    const noDp = `<node_selection>${SEL}</node_selection><workflow>${paperQa}</workflow>`;
    expect(checkFormat(parseAnswer(noDp)).diagnostics.map((d) => d.code)).toEqual(["answer.missing_tag"]);
    const broken = checkFormat(parseAnswer(answer(SEL, paperQa.replace('"edges"', '/* e */ "edges"'))));
    expect(broken.ok).toBe(false);
    expect(broken.diagnostics[0]!.code).toBe("answer.bad_json");
  });

  it("reassembles recorded sections; a null section has no tag", () => {
    const text = reassembleAnswer({ node_selection: SEL, design_principle: null, workflow: paperQa });
    expect(text).toContain("<node_selection>");
    expect(text).not.toContain("<design_principle>");
    const [rec] = parseAnswerRecords([
      {
        task: "PaperQA",
        round: "1",
        node_selection: SEL,
        design_principle: "d",
        workflow: paperQa,
        valid: "False",
        fail_step: "step_1_4",
      },
    ]);
    expect(rec!.round).toBe(1);
    expect(rec!.recorded).toEqual({ valid: false, failStep: "step_1_4", reason: undefined });
    expect(() => parseAnswerRecords({})).toThrow(PassEvalError);
    expect(() => parseAnswerRecords([{ task: "X", round: "zero" }])).toThrow(/round must be a positive integer/);
  });
});

describe("step_1_2 conversion", () => {
  it("converts, exports to Dify YAML and re-imports", () => {
    const r = checkConvert(JSON.parse(paperQa), "PaperQA_1");
    expect(r.ok).toBe(true);
    expect(r.yaml).toMatch(/kind: app/);
    expect(r.workflow!.nodes.map((n) => n.type)).toEqual(["start", "document-extractor", "llm", "end"]);
  });

  it("fails on converter errors with their codes", () => {
    const bad = JSON.parse(paperQa);
    bad.nodes_info[2].type = "template";
    expect(checkConvert(bad, "x").diagnostics.map((d) => d.code)).toContain("compact.unknown_type");
    expect(checkConvert([1, 2], "x").diagnostics[0]!.code).toBe("answer.not_workflow");
    const forward = JSON.parse(paperQa);
    forward.nodes_info.reverse();
    expect(checkConvert(forward, "x").diagnostics.map((d) => d.code)).toContain("compact.unknown_node_ref");
  });
});

describe("step_1_3 variables", () => {
  it("compares start inputs as a set and a flat output_var against exactly one End", () => {
    expect(checkVariables(JSON.parse(paperQa), ins.check).ok).toBe(true);
    const renamed = JSON.parse(paperQa);
    renamed.nodes_info[0].param.variables = [
      ["question", "string"],
      ["doc", "file"],
    ];
    const r = checkVariables(renamed, ins.check);
    expect(r.diagnostics.map((d) => d.code)).toEqual(["pass.input_mismatch"]);
    expect(r.diagnostics[0]!.message).toMatch(/missing \[paper\]; unexpected \[doc\]/);
    const twoEnds = JSON.parse(paperQa);
    twoEnds.nodes_info.push({ id: "5", type: "end", param: { outputs: [["answer", ["text", "3"]]] } });
    expect(checkVariables(twoEnds, ins.check).diagnostics.map((d) => d.code)).toEqual(["pass.end_count"]);
    const extra = JSON.parse(paperQa);
    extra.nodes_info[3].param.outputs.push(["context", ["text", "2"]]);
    expect(checkVariables(extra, ins.check).diagnostics.map((d) => d.code)).toEqual(["pass.output_mismatch"]);
  });

  it("compares nested output_var as a multiset of sorted lists", () => {
    const nested = { input_var: ["q"], output_var: [["result"], ["html", "result"]], related_nodes: [] };
    const mk = (ends: string[][]) => ({
      nodes_info: [
        { id: "1", type: "start", param: { variables: [["q", "string"]] } },
        ...ends.map((o, i) => ({ id: `e${i}`, type: "end", param: { outputs: o.map((n) => [n, ["q", "1"]]) } })),
      ],
      edges: [],
    });
    expect(checkVariables(mk([["result", "html"], ["result"]]), nested).ok).toBe(true);
    expect(checkVariables(mk([["result"], ["result"]]), nested).ok).toBe(false);
    expect(checkVariables(mk([["result", "html"]]), nested).ok).toBe(false);
    expect(checkVariables({ nodes_info: [], edges: [] }, nested).diagnostics[0]!.code).toBe("pass.no_start");
  });
});

describe("step_1_4 node selection (deterministic)", () => {
  it("requires declared = used both ways, with aliases, and key nodes declared and used", () => {
    const json = JSON.parse(paperQa);
    expect(
      checkSelection("Start\nDocument Extractor\nLLM (answers the question)\nEnd", json, ins.check.related_nodes).ok,
    ).toBe(true);
    const noEnd = checkSelection("Start, Document Extractor, LLM", json, ins.check.related_nodes);
    expect(noEnd.diagnostics.map((d) => d.code)).toEqual(["pass.undeclared_type"]);
    const extra = checkSelection(`${SEL}, Template`, json, ins.check.related_nodes);
    expect(extra.diagnostics[0]!.message).toMatch(/template-transform/);
    const keys = checkSelection(SEL, json, ["llm", "tts"]);
    expect(keys.diagnostics.map((d) => d.code)).toEqual(["pass.key_node_undeclared", "pass.key_node_unused"]);
    const tts = {
      nodes_info: [
        { id: "1", type: "start" },
        { id: "2", type: "tts" },
        { id: "3", type: "template-transform" },
        { id: "4", type: "end" },
      ],
    };
    expect(checkSelection("Start, Text to Speech, Template, End", tts, ["tts", "template-transform"]).ok).toBe(true);
    expect(
      checkSelection("Start, Text to Speech, Template, End, Magic Box", tts, []).diagnostics.map((d) => d.code),
    ).toEqual(["pass.unrecognised_name"]);
  });
});

describe("one answer through the pipeline", () => {
  it("passes a correct answer, and names the first failing step", () => {
    const ok = evaluateAnswer(answer(SEL, paperQa), ins);
    expect(ok).toMatchObject({ passed13: true, passDeterministic: true, passAnalyserClean: true });
    expect(ok.failStep).toBeUndefined();
    const sel = evaluateAnswer(answer("Start, LLM, End", paperQa), ins);
    expect(sel).toMatchObject({ passed13: true, passDeterministic: false, failStep: "step_1_4" });
    const fenced = answer(SEL, `\`\`\`json\n${paperQa}\n\`\`\``);
    expect(evaluateAnswer(fenced, ins).failStep).toBe("step_1_1");
    const repaired = evaluateAnswer(fenced, ins, { repair: true });
    expect(repaired.passDeterministic).toBe(true);
    expect(repaired.repairs.map((r) => r.kind)).toEqual(["fences"]);
  });

  it("reports the analyser separately from the paper's pass", () => {
    // Reads a variable the LLM does not publish: conversion and names pass, the analyser rejects.
    const j = JSON.parse(paperQa);
    j.nodes_info[3].param.outputs = [["answer", ["answer", "3"]]];
    const r = evaluateAnswer(answer(SEL, JSON.stringify(j)), ins);
    expect(r.passDeterministic).toBe(true);
    expect(r.passAnalyserClean).toBe(false);
    expect(r.analyserErrors.map((d) => d.code)).toContain("ref.missing_output");
  });
});

describe("LLM judge", () => {
  let server: ReplayServer;
  beforeAll(async () => {
    server = await startReplayServer();
  });
  afterAll(async () => {
    await server.close();
  });
  const llm = () =>
    createLlmService({
      endpoints: { ep: { provider: "openai-compatible", baseURL: server.openaiBaseURL, model: "judge-1" } },
      default: "ep",
      retry: { maxRetries: 0 },
    });

  it("reads verdicts the way the benchmark does", () => {
    expect(
      parsePassJudgeReply("<reason>fine</reason><rule1>true</rule1><rule2>true</rule2><result>\ntrue\n</result>"),
    ).toMatchObject({ ok: true, reason: "fine", rule1: true, rule2: true });
    expect(parsePassJudgeReply("<reason>x</reason><result>false</result>").ok).toBe(false);
    // Only the text after the last <result> counts.
    expect(parsePassJudgeReply("<result>false</result> on reflection <result>true</result>").ok).toBe(true);
    const noTag = parsePassJudgeReply("The answer is false.");
    expect(noTag.ok).toBe(false);
    expect(noTag.diagnostics[0]!.code).toBe("pass.judge_no_result");
  });

  it("sends the prompt at temperature 0 and returns the verdict", async () => {
    server.enqueue(
      reply.text(
        "<reason>Rule 1 holds; Rule 2 holds.</reason><rule1>true</rule1><rule2>true</rule2><result>true</result>",
      ),
    );
    const judge = createLlmPassJudge(llm(), { provider: "weft-judge", name: "" });
    const v = await judge({
      nodeSelection: "Start\nLLM\nEnd",
      designPrinciple: "dp",
      workflow: paperQa,
      gtNodes: ["llm"],
    });
    expect(v.ok).toBe(true);
    const req = server.last()!;
    expect(req.body.temperature).toBe(0);
    expect(req.body.messages[0].role).toBe("system");
    expect(req.body.messages[0].content).toMatch(/Check 1 — key nodes/);
    expect(req.body.messages[1].content).toContain('gt_nodes: ["llm"]');
    expect(req.body.messages[1].content).toContain("node_selection: Start, LLM, End");
    expect(
      buildPassJudgePrompt({ nodeSelection: "a", designPrinciple: "{{workflow}}", workflow: "w", gtNodes: [] }).user,
    ).toContain("design_principle: {{workflow}}");
  });

  it("judges only answers that passed 1_1–1_3, and reports judged rates", async () => {
    const suite: Suite = {
      dir: "mem",
      instructions: new Map([
        [ins.key, ins],
        ["PaperQA_2", { ...ins, key: "PaperQA_2", round: 2 }],
      ]),
    };
    const records = parseAnswerRecords([
      { task: "PaperQA", round: 1, answer: answer(SEL, paperQa), valid: true },
      { task: "PaperQA", round: 2, answer: answer(SEL, "{not json"), valid: false, fail_step: "step_1_1" },
    ]);
    const before = server.requests.length;
    server.enqueue(
      reply.text(
        "<reason>design says X, workflow does Y</reason><rule1>true</rule1><rule2>false</rule2><result>false</result>",
      ),
    );
    const judge = createLlmPassJudge(llm(), { provider: "weft-judge", name: "" });
    const r = await evaluatePassSuite(suite, records, "mini", { judge });
    expect(server.requests.length - before).toBe(1);
    expect(r.items[0]!.strict).toMatchObject({ passDeterministic: true, passJudged: false });
    expect(r.items[0]!.strict.judge!.rule2).toBe(false);
    expect(r.summary.judge).toBe("used");
    expect(r.summary.strict).toMatchObject({ total: 2, deterministic: 1, judged: 0 });
    expect(r.summary.agreement!.agree).toBe(2);
    expect(renderPassReport(r)).toMatch(/pass with the LLM judge/);
  });

  it("without a judge, says the judged checks were skipped", async () => {
    const suite: Suite = { dir: "mem", instructions: new Map([[ins.key, ins]]) };
    const r = await evaluatePassSuite(
      suite,
      parseAnswerRecords([{ task: "PaperQA", round: 1, answer: answer(SEL, paperQa) }]),
      "mini",
    );
    expect(r.summary.judge).toBe("skipped");
    expect(r.summary.strict.judged).toBeUndefined();
    expect(renderPassReport(r)).toMatch(/\*\*skipped\*\*/);
    await expect(
      evaluatePassSuite(suite, parseAnswerRecords([{ task: "Nope", round: 1, answer: "" }]), "mini"),
    ).rejects.toMatchObject({ code: "pass.unknown_instruction" });
  });
});
