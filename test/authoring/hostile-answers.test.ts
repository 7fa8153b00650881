import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readAnswer } from "../../src/authoring/answer.js";
import { readEdit, viewOf } from "../../src/authoring/edit/read.js";
import { compactToWorkflow } from "../../src/dsl/compact/to-ir.js";
import { WorkflowSchema } from "../../src/ir/workflow.js";
import { parseModelJson } from "../../src/llm/json.js";
import { paramType } from "../../src/nodes/parameter-extractor.js";
import { MAX_ANSWER_EDGES } from "../../src/util/answer-limits.js";
import { hostileAnswer, judgeAnswer, mutatedAnswer } from "../support/hostile-answers.js";

const tags = (wf: unknown) =>
  `<node_selection>Start, LLM, End</node_selection>\n<design_principle>x</design_principle>\n<workflow>${JSON.stringify(wf)}</workflow>`;
const start = { id: "1", type: "start", param: { variables: [["q", "string"]] } };
const end = (from: string) => ({ id: "9", type: "end", param: { outputs: [["o", ["text", from]]] } });
const codes = (text: string) => readAnswer(text).problems.map((d) => d.code);

describe("hostile model answers end in typed diagnostics (issue 16 item 2)", () => {
  // 3,000 answers are CPU-bound work (~8 s alone); the budget is for a machine whose cores are shared.
  it("a seeded fuzz over generated and mutated real answers finds nothing untyped", { timeout: 180_000 }, () => {
    const answers = fc.oneof(hostileAnswer, mutatedAnswer());
    fc.assert(
      fc.property(answers, (a) => {
        const o = judgeAnswer(a);
        if (o.kind === "untyped") throw new Error(o.reason);
      }),
      { seed: 20261203, numRuns: 3000 },
    );
  });

  // Each case below threw before the fix (the site in the comment).
  it("a node type named after an Object.prototype member is an unknown type", () => {
    // references.ts: TEXT_FIELDS["constructor"] was a function ("function is not iterable")
    expect(
      codes(tags({ nodes_info: [start, { id: "2", type: "constructor", param: {} }, end("2")], edges: [] })),
    ).toContain("compact.unknown_type");
    // to-ir.ts: TOOL_ALIASES["valueOf"] was a function ("alias.params is not a function")
    expect(
      compactToWorkflow({ nodes_info: [start, { id: "2", type: "valueOf", param: {} }] }).diagnostics.map(
        (d) => d.code,
      ),
    ).toContain("compact.unknown_type");
  });

  it('a start input typed "constructor" is a bad start type, not a host function in the IR', () => {
    const r = compactToWorkflow({
      nodes_info: [{ id: "1", type: "start", param: { variables: [["q", "constructor"]] } }],
    });
    expect(r.diagnostics.map((d) => d.code)).toEqual(["compact.bad_start_type"]);
    expect(JSON.stringify(r.workflow?.nodes[0]?.config)).not.toContain("function");
  });

  it('a parameter typed "__defineGetter__" is unknown, not Object.prototype\'s member', () => {
    expect(paramType("__defineGetter__")).toBeUndefined();
    expect(paramType("constructor")).toBeUndefined();
    expect(paramType("bool")).toBe("boolean");
  });

  it("an empty node id is a compact.bad_node, not a raw ZodError", () => {
    const r = compactToWorkflow({
      nodes_info: [
        { id: "", type: "start", param: {} },
        { id: "2", type: "end", param: {} },
      ],
    });
    expect(r.diagnostics.map((d) => d.code)).toContain("compact.bad_node");
  });

  it("an object port, or one whose valueOf is not a function, is a bad port", () => {
    const nodes = [start, { id: "2", type: "llm", param: { system: "", user: "{{#'1'.q#}}" } }, end("2")];
    for (const port of [{ valueOf: 1 }, [0], "0x1", 1e308]) {
      const r = compactToWorkflow({ nodes_info: nodes, edges: [["1", port, "2"]] });
      expect(r.diagnostics.map((d) => d.code)).toContain("compact.bad_port");
    }
  });

  it("edge endpoints and class names with an own toString are reported, not String()-ed", () => {
    const r = compactToWorkflow({ nodes_info: [start], edges: [[{ toString: 1 }, 0, "1"]] });
    expect(r.diagnostics.map((d) => d.code)).toContain("compact.bad_edge");
    const q = compactToWorkflow({
      nodes_info: [
        start,
        {
          id: "2",
          type: "question-classifier",
          param: { query_variable_selector: ["q", "1"], classes: [{ valueOf: 2 }, "b"] },
        },
      ],
    });
    expect(q.diagnostics.map((d) => d.code)).toContain("compact.bad_param");
  });

  it("deep nesting and oversized answers are refused before anything recurses", () => {
    const deep = `${"[".repeat(20_000)}1${"]".repeat(20_000)}`;
    expect(codes(tags({ nodes_info: [start], edges: [] }).replace('"edges":[]', `"edges":${deep}`))).toEqual([
      "answer.too_deep",
    ]);
    const many = Array.from({ length: 600 }, (_, i) => ({ id: String(i + 2), type: "llm", param: {} }));
    expect(codes(tags({ nodes_info: [start, ...many], edges: [] }))).toEqual(["answer.too_large"]);
  });

  it("ids that collide once written for Dify are reported", () => {
    const r = compactToWorkflow({
      nodes_info: [start, { id: "2-1", type: "llm", param: {} }, { id: "2_1", type: "llm", param: {} }],
    });
    expect(r.diagnostics.map((d) => d.code)).toContain("compact.duplicate_id");
  });

  // Issue 28: these took 98 s and 29 s on the caller's thread before; the bound is 10x+ what they take now.
  describe("runaway answers are refused by their size before reading", () => {
    const dupEdges = (n: number) => ({
      nodes_info: [start, end("1")],
      edges: Array.from({ length: n }, () => ["1", 0, "9"]),
    });
    const empty = () => viewOf(WorkflowSchema.parse({ name: "x", mode: "workflow", nodes: [], edges: [] }));

    it("10,000 duplicate edges (a 120 KB answer) are answer.too_large", () => {
      const t = performance.now();
      expect(codes(tags(dupEdges(10_000)))).toEqual(["answer.too_large"]);
      expect(performance.now() - t).toBeLessThan(5000);
    });

    it("the edit reader (proposals, the agent's tools) caps edges too", () => {
      const t = performance.now();
      const r = readEdit(empty(), dupEdges(10_000));
      expect(r.diagnostics.map((d) => d.code)).toEqual(["compact.too_large"]);
      expect(r.diagnostics[0]!.message).toContain("10000 edges");
      expect(performance.now() - t).toBeLessThan(5000);
    });

    it("duplicate edges up to the cap get distinct ids in Dify's style, in linear time", () => {
      const t = performance.now();
      const r = readEdit(empty(), dupEdges(MAX_ANSWER_EDGES));
      const ids = r.workflow!.edges.map((e) => e.id);
      expect(new Set(ids).size).toBe(MAX_ANSWER_EDGES);
      expect(ids.slice(0, 3)).toEqual(["1-source-9-target", "1-source-9-target-2", "1-source-9-target-3"]);
      expect(performance.now() - t).toBeLessThan(5000);
    });

    it("a 10 MB unterminated answer is answer.too_large, in the repair loop and the LLM service's JSON mode", () => {
      const text = `<workflow>{"nodes_info":[{"id":"1","type":"start","param":{"x":"${"a".repeat(10_000_000)}`;
      const t = performance.now();
      expect(codes(text)).toEqual(["answer.too_large"]);
      const llm = parseModelJson(text);
      expect(llm.ok).toBe(false);
      expect(!llm.ok && llm.error).toMatch(/^the answer is 100\d+ characters; at most 1000000/);
      expect(performance.now() - t).toBeLessThan(5000);
    });
  });
});
