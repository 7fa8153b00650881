import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { ANALYSIS_CODES } from "../../src/analysis/index.js";
import type { NodeTypes } from "../../src/ir/registry.js";
import type { Workflow } from "../../src/ir/workflow.js";
import { nodeCatalogue } from "../../src/nodes/index.js";
import { agg, chain, e, end, ifElse, n, run, show, start, tt, wf } from "./helpers.js";

/** The minimal valid workflow the bad ones are derived from. */
const base = () => [start(), tt("t", [["q", ["start", "query"]]]), end("end", [["out", ["t", "output"]]])];
const baseEdges = () => chain("start", "t", "end");

const covered = new Set<string>();

afterAll(() => {
  // Every code the analyser can emit itself has a hand-made bad workflow above.
  const missing = [...Object.keys(ANALYSIS_CODES), "mode.end_in_chat", "mode.answer_in_workflow"].filter(
    (c) => !covered.has(c),
  );
  expect(missing).toEqual([]);
});

function expectCode(
  w: Workflow,
  code: string,
  where: { nodeId?: string; field?: string } = {},
  types: NodeTypes = nodeCatalogue,
) {
  covered.add(code);
  const r = run(w, undefined, types);
  const hits = r.diagnostics.filter((d) => d.code === code);
  expect(hits.length, `expected ${code}, got:\n${show(r)}`).toBeGreaterThan(0);
  const match = hits.find(
    (d) =>
      (where.nodeId === undefined || d.nodeId === where.nodeId) &&
      (where.field === undefined || d.field === where.field),
  );
  expect(match, `no ${code} at ${JSON.stringify(where)}; got:\n${show(r)}`).toBeDefined();
  expect(match!.message.length).toBeGreaterThan(10);
  return { r, d: match! };
}

const iterationNodes = (children: ReturnType<typeof n>[] = []) => [
  start([["items", "array[string]"]]),
  n("it", "iteration", { iterator_selector: ["start", "items"], output_selector: ["body", "output"] }),
  n("itstart", "iteration-start", {}, { parentId: "it" }),
  n(
    "body",
    "template-transform",
    { variables: [{ variable: "x", value_selector: ["it", "item"] }], template: "{{ x }}" },
    { parentId: "it" },
  ),
  ...children,
  end("end", [["out", ["it", "output"]]]),
];
const iterationEdges = () => [e("start", "it"), e("it", "end"), e("itstart", "body")];

describe("one bad workflow per diagnostic code", () => {
  it("node.invalid", () => {
    const w = wf("workflow", base(), baseEdges());
    (w.nodes as unknown[]).push({ title: "no id" });
    expectCode(w, "node.invalid", { field: "nodes[3]" });
  });

  it("node.duplicate_id", () => {
    expectCode(wf("workflow", [...base(), tt("t", [])], baseEdges()), "node.duplicate_id", { nodeId: "t" });
  });

  it("node.unknown_type", () => {
    const nodes = base();
    nodes[1] = n("t", "telepathy");
    expectCode(wf("workflow", nodes, baseEdges()), "node.unknown_type", { nodeId: "t", field: "type" });
  });

  it("config.invalid (from describeNode)", () => {
    const nodes = base();
    nodes[2] = n("end", "end", { outputs: "result" });
    expectCode(wf("workflow", nodes, baseEdges()), "config.invalid", { nodeId: "end", field: "outputs" });
  });

  it("edge.dangling", () => {
    expectCode(wf("workflow", base(), [...baseEdges(), e("t", "ghost")]), "edge.dangling", { nodeId: "t" });
  });

  it("edge.bad_port", () => {
    expectCode(wf("workflow", base(), [e("start", "t", "true"), e("t", "end")]), "edge.bad_port", { nodeId: "start" });
  });

  it("edge.bad_port on an if-else port that is not a case", () => {
    const w = wf(
      "workflow",
      [start(), ifElse("if", ["true"]), tt("t", []), end("end", [])],
      [e("start", "if"), e("if", "t", "maybe"), e("if", "end", "false"), e("t", "end")],
    );
    expectCode(w, "edge.bad_port", { nodeId: "if" });
  });

  it("edge.cross_container", () => {
    expectCode(wf("workflow", iterationNodes(), [...iterationEdges(), e("start", "body")]), "edge.cross_container", {
      nodeId: "start",
    });
  });

  it("edge.into_start", () => {
    expectCode(wf("workflow", base(), [...baseEdges(), e("t", "start")]), "edge.into_start", { nodeId: "start" });
  });

  it("edge.duplicate", () => {
    const { d } = expectCode(wf("workflow", base(), [...baseEdges(), e("t", "end")]), "edge.duplicate", {
      nodeId: "t",
    });
    expect(d.severity).toBe("warning");
  });

  it("container.bad_nesting: parentId names a non-container", () => {
    const nodes = base();
    nodes.push(tt("x", [], "hi"));
    nodes[3]!.parentId = "t";
    expectCode(wf("workflow", nodes, baseEdges()), "container.bad_nesting", { nodeId: "x", field: "parentId" });
  });

  it("container.bad_nesting: iteration-start outside its iteration", () => {
    const nodes = [...base(), n("stray", "iteration-start")];
    expectCode(wf("workflow", nodes, baseEdges()), "container.bad_nesting", { nodeId: "stray" });
  });

  it("container.bad_nesting: iteration-start inside a loop", () => {
    const nodes = [
      start(),
      n("lp", "loop", { loop_count: 2 }),
      n("ls", "loop-start", {}, { parentId: "lp" }),
      n("wrong", "iteration-start", {}, { parentId: "lp" }),
      end("end", []),
    ];
    expectCode(wf("workflow", nodes, [e("start", "lp"), e("lp", "end"), e("ls", "wrong")]), "container.bad_nesting", {
      nodeId: "wrong",
    });
  });

  it("container.start_edge", () => {
    expectCode(wf("workflow", iterationNodes(), [...iterationEdges(), e("it", "itstart")]), "container.start_edge", {
      nodeId: "it",
    });
  });

  it("container.missing_start", () => {
    const nodes = iterationNodes().filter((x) => x.id !== "itstart");
    expectCode(wf("workflow", nodes, [e("start", "it"), e("it", "end")]), "container.missing_start", { nodeId: "it" });
  });

  it("container.multiple_start", () => {
    const nodes = [...iterationNodes(), n("itstart2", "iteration-start", {}, { parentId: "it" })];
    expectCode(wf("workflow", nodes, iterationEdges()), "container.multiple_start", { nodeId: "itstart2" });
  });

  it("graph.no_start", () => {
    expectCode(wf("workflow", base().slice(1), [e("t", "end")]), "graph.no_start");
  });

  it("graph.multiple_start", () => {
    const nodes = [...base(), n("start2", "start", { variables: [] })];
    expectCode(wf("workflow", nodes, [...baseEdges(), e("start2", "end")]), "graph.multiple_start", {
      nodeId: "start2",
    });
  });

  it("graph.start_and_trigger", () => {
    const nodes = [
      ...base(),
      n("sch", "trigger-schedule", { mode: "cron", cron_expression: "0 8 * * *", timezone: "UTC" }),
    ];
    expectCode(wf("workflow", nodes, [...baseEdges(), e("sch", "t")]), "graph.start_and_trigger", { nodeId: "sch" });
  });

  it("graph.cycle", () => {
    const nodes = [...base(), tt("u", [["q", ["t", "output"]]])];
    const { r } = expectCode(wf("workflow", nodes, [...baseEdges(), e("t", "u"), e("u", "t")]), "graph.cycle", {
      nodeId: "t",
    });
    expect(r.diagnostics.filter((d) => d.code === "graph.cycle")).toHaveLength(1);
  });

  it("graph.unreachable", () => {
    const nodes = [...base(), tt("orphan", [["q", ["start", "query"]]])];
    const { r } = expectCode(wf("workflow", nodes, [...baseEdges(), e("orphan", "end")]), "graph.unreachable", {
      nodeId: "orphan",
    });
    // No availability noise on top of the unreachable report.
    expect(r.diagnostics.filter((d) => d.code === "ref.not_available")).toEqual([]);
  });

  it("graph.unreachable inside a container body", () => {
    const nodes = iterationNodes([n("lost", "template-transform", { template: "x" }, { parentId: "it" })]);
    expectCode(wf("workflow", nodes, iterationEdges()), "graph.unreachable", { nodeId: "lost" });
  });

  it("graph.dead_end", () => {
    const nodes = [...base(), tt("side", [["q", ["start", "query"]]])];
    const { d } = expectCode(wf("workflow", nodes, [...baseEdges(), e("start", "side")]), "graph.dead_end", {
      nodeId: "side",
    });
    expect(d.severity).toBe("warning");
  });

  it("mode.end_in_chat", () => {
    const w = wf(
      "advanced-chat",
      [...base(), n("answer", "answer", { answer: "{{#t.output#}}" })],
      [...baseEdges(), e("t", "answer")],
    );
    expectCode(w, "mode.end_in_chat", { nodeId: "end" });
  });

  it("mode.answer_in_workflow", () => {
    const w = wf(
      "workflow",
      [...base(), n("answer", "answer", { answer: "{{#t.output#}}" })],
      [...baseEdges(), e("t", "answer")],
    );
    expectCode(w, "mode.answer_in_workflow", { nodeId: "answer" });
  });

  it("mode.answer_in_workflow is only a warning when an end node follows the answer (Dify runs it)", () => {
    const w = wf(
      "workflow",
      [
        start(),
        tt("t", [["q", ["start", "query"]]]),
        n("answer", "answer", { answer: "{{#t.output#}}" }),
        end("end", [["out", ["t", "output"]]]),
      ],
      chain("start", "t", "answer", "end"),
    );
    const { d, r } = expectCode(w, "mode.answer_in_workflow", { nodeId: "answer" });
    expect(d.severity).toBe("warning");
    expect(
      r.diagnostics.filter((x) => x.severity === "error"),
      show(r),
    ).toEqual([]);
  });

  it("mode.no_exit", () => {
    expectCode(wf("workflow", base().slice(0, 2), chain("start", "t")), "mode.no_exit");
  });

  it("ref.missing_node", () => {
    const nodes = base();
    nodes[2] = end("end", [["out", ["nobody", "output"]]]);
    expectCode(wf("workflow", nodes, baseEdges()), "ref.missing_node", {
      nodeId: "end",
      field: "outputs[0].value_selector",
    });
  });

  it("ref.missing_output", () => {
    const nodes = base();
    nodes[2] = end("end", [["out", ["t", "text"]]]);
    expectCode(wf("workflow", nodes, baseEdges()), "ref.missing_output", {
      nodeId: "end",
      field: "outputs[0].value_selector",
    });
  });

  it("ref.missing_output for a chat-only system variable in workflow mode", () => {
    const nodes = base();
    nodes[1] = tt("t", [["q", ["sys", "query"]]]);
    const { d } = expectCode(wf("workflow", nodes, baseEdges()), "ref.missing_output", { nodeId: "t" });
    expect(d.message).toMatch(/advanced-chat/);
  });

  it("ref.missing_output for conversation variables in workflow mode and unknown env names", () => {
    const nodes = base();
    nodes[1] = tt("t", [
      ["a", ["conversation", "x"]],
      ["b", ["env", "NOPE"]],
    ]);
    const r = run(wf("workflow", nodes, baseEdges()));
    const fields = r.diagnostics.filter((d) => d.code === "ref.missing_output").map((d) => d.field);
    expect(fields).toEqual(["variables[0].value_selector", "variables[1].value_selector"]);
  });

  it("ref.not_available: if-else branches joined without an aggregator", () => {
    const w = wf(
      "workflow",
      [
        start(),
        ifElse("if", ["true"]),
        tt("yes", [["q", ["start", "query"]]]),
        tt("no", [["q", ["start", "query"]]]),
        end("end", [["out", ["yes", "output"]]]),
      ],
      [e("start", "if"), e("if", "yes", "true"), e("if", "no", "false"), e("yes", "end"), e("no", "end")],
    );
    const { d } = expectCode(w, "ref.not_available", { nodeId: "end", field: "outputs[0].value_selector" });
    expect(d.message).toMatch(/variable-aggregator/);
  });

  it("ref.out_of_scope: reading a body node from outside the iteration", () => {
    const nodes = iterationNodes();
    nodes[nodes.length - 1] = end("end", [["out", ["body", "output"]]]);
    expectCode(wf("workflow", nodes, iterationEdges()), "ref.out_of_scope", {
      nodeId: "end",
      field: "outputs[0].value_selector",
    });
  });

  it("type.mismatch: iterating over a string", () => {
    const nodes = iterationNodes();
    nodes[0] = start([["items", "paragraph"]]);
    expectCode(wf("workflow", nodes, iterationEdges()), "type.mismatch", { nodeId: "it", field: "iterator_selector" });
  });

  it("type.mismatch: aggregator alternatives of the wrong type", () => {
    const w = wf(
      "workflow",
      [start([["n", "number"]]), agg("merge", [["start", "n"]], "string"), end("end", [["out", ["merge", "output"]]])],
      chain("start", "merge", "end"),
    );
    expectCode(w, "type.mismatch", { nodeId: "merge", field: "variables[0]" });
  });

  it("template.unresolved", () => {
    const w = wf(
      "advanced-chat",
      [start([]), n("answer", "answer", { answer: "Hi {{#ghost.text#}}" })],
      chain("start", "answer"),
    );
    expectCode(w, "template.unresolved", { nodeId: "answer", field: "answer" });
  });

  it("template.malformed_ref", () => {
    const w = wf(
      "advanced-chat",
      [start([]), n("answer", "answer", { answer: "Hi {{#1716-909.text#}} {{#sys.query#}}" })],
      chain("start", "answer"),
    );
    const { d } = expectCode(w, "template.malformed_ref", { nodeId: "answer", field: "answer" });
    expect(d.severity).toBe("warning");
  });

  it("jinja.syntax", () => {
    const nodes = base();
    nodes[1] = tt("t", [["q", ["start", "query"]]], "{% if q %}yes");
    expectCode(wf("workflow", nodes, baseEdges()), "jinja.syntax", { nodeId: "t", field: "template" });
    nodes[1] = tt("t", [["q", ["start", "query"]]], "{{ q ");
    const { d } = expectCode(wf("workflow", nodes, baseEdges()), "jinja.syntax", { nodeId: "t", field: "template" });
    expect(d.message).toMatch(/Unexpected end of input/);
  });

  it("def.rules diagnostics pass through (if-else with no cases)", () => {
    const w = wf(
      "workflow",
      [start(), n("if", "if-else", { cases: [] }), end("end", [])],
      [e("start", "if"), e("if", "end", "false")],
    );
    expectCode(w, "if_else.no_cases", { nodeId: "if", field: "cases" });
  });

  it("analysis.rule_failed: a node type's rule throws", () => {
    const types = nodeCatalogue.with({
      type: "test-throwing-rule",
      label: "Throws",
      category: "transform",
      purpose: "test only",
      configSchema: z.object({}).loose(),
      outputs: () => [],
      inputs: () => [],
      ports: () => ["source"],
      rules: () => {
        throw new Error("boom");
      },
    });
    const nodes = [...base(), n("x", "test-throwing-rule")];
    const w = wf("workflow", nodes, [e("start", "x"), e("x", "t"), e("t", "end")]);
    expectCode(w, "analysis.rule_failed", { nodeId: "x" }, types);
  });
});

describe("options", () => {
  it("severity overrides change and silence codes", () => {
    const nodes = [...base(), tt("side", [["q", ["start", "query"]]])];
    const w = wf("workflow", nodes, [...baseEdges(), e("start", "side")]);
    expect(run(w, { severities: { "graph.dead_end": "error" } }).diagnostics[0]).toMatchObject({
      code: "graph.dead_end",
      severity: "error",
    });
    expect(run(w, { severities: { "graph.dead_end": "off" } }).diagnostics).toEqual([]);
  });

  it("mode option overrides workflow.mode", () => {
    const w = wf("workflow", base(), baseEdges());
    expect(run(w, { mode: "advanced-chat" }).diagnostics.map((d) => d.code)).toContain("mode.end_in_chat");
  });
});
