import { describe, expect, it } from "vitest";
import "../../src/nodes/question-classifier.js";
import "../../src/nodes/llm.js";
import { codeBranches, conditionalWords } from "../../src/analysis/burden/complexity.js";
import { BURDEN_THRESHOLDS, estimateTokens, worstRegions } from "../../src/analysis/index.js";
import { chain, e, end, ifElse, n, run, start, tt, wf } from "./helpers.js";

const model = { provider: "openai", name: "gpt-4o-mini", mode: "chat", completion_params: {} };
const llm = (id: string, text: string) => n(id, "llm", { model, prompt_template: [{ role: "user", text }] });

describe("burden", () => {
  it("token estimates by type (arrays ×8)", () => {
    expect(estimateTokens("string")).toBe(256);
    expect(estimateTokens("object")).toBe(512);
    expect(estimateTokens("file")).toBe(2000);
    expect(estimateTokens("array[file]")).toBe(16000);
    expect(estimateTokens("array[string]")).toBe(2048);
    expect(estimateTokens("any")).toBe(256);
  });

  it("code branches are counted lexically, ignoring strings and comments", () => {
    const py = [
      "def main(x):",
      "    # if this comment counted it would be wrong",
      "    s = 'if else while'",
      "    if x > 1 and x < 5:",
      "        return {'r': 1}",
      "    elif x == 0 or x is None:",
      "        return {'r': 0}",
      "    for i in range(3):",
      "        pass",
      "    try:\n        pass\n    except Exception:\n        pass",
      "    return {'r': 2 if x else 3}",
    ].join("\n");
    // if, and, elif, or, for, except, if, else
    expect(codeBranches(py)).toBe(8);
    const js = 'function main(o) { // if\n  const s = "while";\n  return o.a && o.b ? {r: 1} : (o.c ?? {r: 2}); }';
    // &&, ?:, ??
    expect(codeBranches(js)).toBe(3);
  });

  it("conditional words in prompts", () => {
    expect(
      conditionalWords("If the user is angry, apologise; otherwise answer. Depending on the tone, when unsure, ask."),
    ).toBe(4);
  });

  it("per-node decisions: if-else ports and conditions, classifier classes, LLM prompt words", () => {
    const cond = (v: string) => ({ variable_selector: ["start", "query"], comparison_operator: "contains", value: v });
    const w = wf(
      "workflow",
      [
        start(),
        n("if", "if-else", {
          cases: [
            { case_id: "true", logical_operator: "and", conditions: [cond("a"), cond("b"), cond("c")] },
            { case_id: "c2", logical_operator: "or", conditions: [cond("d")] },
          ],
        }),
        n("qc", "question-classifier", {
          query_variable_selector: ["start", "query"],
          model,
          classes: [
            { id: "1", name: "x" },
            { id: "2", name: "y" },
            { id: "3", name: "z" },
          ],
        }),
        llm("l", "If {{#start.query#}} is a question, answer it; otherwise summarise it."),
        end("end", [["out", ["l", "text"]]]),
      ],
      [
        e("start", "if"),
        e("if", "qc", "true"),
        e("if", "qc", "c2"),
        e("if", "qc", "false"),
        e("qc", "l", "1"),
        e("qc", "l", "2"),
        e("qc", "l", "3"),
        e("l", "end"),
      ],
    );
    const r = run(w);
    const by = new Map(r.burden.nodes.map((x) => [x.nodeId, x]));
    expect(by.get("if")!.decisions).toMatchObject({ ports: 2, conditions: 2 });
    expect(by.get("if")!.cyclomatic).toBe(5);
    expect(by.get("qc")!.decisions.ports).toBe(2);
    expect(by.get("l")!.decisions.prompt).toBe(2);
    // Graph: E=8, N=5, P=1 → 8 − 5 + 2 = 5.
    expect(r.burden.workflow).toMatchObject({ edges: 8, nodes: 5, components: 1, cyclomatic: 5 });
    expect(r.burden.workflow.decisionPoints).toBe(5 + 4 + 2 + 2);
  });

  it("context pressure = own text / 4 + estimated size of what is read", () => {
    const text = `Summarise {{#start.query#}} and {{#start.doc#}}.`;
    const w = wf(
      "workflow",
      [
        start([
          ["query", "paragraph"],
          ["doc", "file"],
        ]),
        llm("l", text),
        end("end", [["out", ["l", "text"]]]),
      ],
      chain("start", "l", "end"),
    );
    const l = run(w).burden.nodes.find((x) => x.nodeId === "l")!;
    expect(l.contextTokens).toBe(Math.ceil(text.length / 4) + 256 + 2000);
    expect(l.outputs).toBeGreaterThan(0);
    expect(l.outputTokens).toBeGreaterThan(0);
  });

  it("compaction pressure: artifacts live across each node (live-variable analysis)", () => {
    // start.query is read by a and c; a.output by b; b.output by c; c.output by end.
    const w = wf(
      "workflow",
      [
        start(),
        tt("a", [["q", ["start", "query"]]]),
        tt("b", [["x", ["a", "output"]]]),
        tt("c", [
          ["q", ["start", "query"]],
          ["y", ["b", "output"]],
        ]),
        end("end", [["out", ["c", "output"]]]),
      ],
      chain("start", "a", "b", "c", "end"),
    );
    const live = Object.fromEntries(run(w).burden.nodes.map((x) => [x.nodeId, x.liveArtifacts]));
    // start: {query}; a: {query, a}; b: {query, a, b}; c: {query, b, c}; end: {c}
    expect(live).toEqual({ start: 1, a: 2, b: 3, c: 3, end: 1 });
  });

  it("thresholds, scores and worstRegions", () => {
    const w = wf(
      "workflow",
      [
        start(),
        ifElse("if", ["true", "b", "c"]),
        llm("l1", "if x then y otherwise z, when w unless v {{#start.query#}}"),
        llm("l2", "{{#l1.text#}} if so"),
        end("end", [["out", ["start", "query"]]]),
      ],
      [
        e("start", "if"),
        e("if", "l1", "true"),
        e("if", "end", "b"),
        e("if", "end", "c"),
        e("if", "end", "false"),
        e("l1", "l2"),
        e("l2", "end"),
      ],
    );
    const r = run(w, { thresholds: { cyclomatic: 3 } });
    expect(r.burden.thresholds).toEqual({ ...BURDEN_THRESHOLDS, cyclomatic: 3 });
    const by = new Map(r.burden.nodes.map((x) => [x.nodeId, x]));
    expect(by.get("if")!.over).toEqual(["cyclomatic"]);
    expect(by.get("l1")!.over).toEqual(["cyclomatic"]);
    expect(by.get("l2")!.over).toEqual([]);
    const regions = worstRegions(r.burden, 2);
    // if and l1 are adjacent and both over: one region; then the next-worst single node.
    expect(regions[0]!.nodeIds.sort()).toEqual(["if", "l1"]);
    expect(regions[0]!.over).toEqual(["cyclomatic"]);
    expect(regions).toHaveLength(2);
    expect(regions[1]!.nodeIds).toHaveLength(1);
    expect(worstRegions(r.burden, 0)).toEqual([]);
  });
});
