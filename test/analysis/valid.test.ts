import { describe, expect, it } from "vitest";
import { agg, chain, e, end, errors, ifElse, n, run, show, start, tt, wf } from "./helpers.js";

describe("valid workflows produce no errors", () => {
  it("linear workflow: start → template → end", () => {
    const w = wf(
      "workflow",
      [start(), tt("t", [["q", ["start", "query"]]]), end("end", [["out", ["t", "output"]]])],
      chain("start", "t", "end"),
    );
    const r = run(w);
    expect(r.diagnostics, show(r)).toEqual([]);
  });

  it("advanced-chat: start → answer with sys.query and a conversation variable", () => {
    const w = wf(
      "advanced-chat",
      [
        start([]),
        n("answer", "answer", { answer: "You said {{#sys.query#}} ({{#conversation.topic#}}, {{#env.LANG#}})" }),
      ],
      chain("start", "answer"),
      {
        conversation_variables: [{ name: "topic", value_type: "string", value: "" }],
        environment_variables: [{ name: "LANG", value_type: "string", value: "en" }],
      },
    );
    const r = run(w);
    expect(r.diagnostics, show(r)).toEqual([]);
  });

  it("parallel fan-out re-joining: the join sees both branches", () => {
    const w = wf(
      "workflow",
      [
        start(),
        tt("a", [["q", ["start", "query"]]]),
        tt("b", [["q", ["start", "query"]]]),
        tt("j", [
          ["x", ["a", "output"]],
          ["y", ["b", "output"]],
        ]),
        end("end", [["out", ["j", "output"]]]),
      ],
      [e("start", "a"), e("start", "b"), e("a", "j"), e("b", "j"), e("j", "end")],
    );
    const r = run(w);
    expect(errors(r), show(r)).toEqual([]);
  });

  it("if-else join through a variable-aggregator passes", () => {
    const w = wf(
      "workflow",
      [
        start(),
        ifElse("if", ["true"]),
        tt("yes", [["q", ["start", "query"]]]),
        tt("no", [["q", ["start", "query"]]]),
        agg("merge", [
          ["yes", "output"],
          ["no", "output"],
        ]),
        end("end", [
          ["out", ["merge", "output"]],
          ["cond", ["if", "result"]],
        ]),
      ],
      [
        e("start", "if"),
        e("if", "yes", "true"),
        e("if", "no", "false"),
        e("yes", "merge"),
        e("no", "merge"),
        e("merge", "end"),
      ],
    );
    const r = run(w);
    expect(errors(r), show(r)).toEqual([]);
  });

  it("iteration with an iteration-start body reading item, output read after the container", () => {
    const w = wf(
      "workflow",
      [
        start([["items", "array[string]"]]),
        n("it", "iteration", {
          iterator_selector: ["start", "items"],
          output_selector: ["body", "output"],
          start_node_id: "itstart",
        }),
        n("itstart", "iteration-start", {}, { parentId: "it" }),
        n(
          "body",
          "template-transform",
          {
            variables: [
              { variable: "x", value_selector: ["it", "item"] },
              { variable: "q", value_selector: ["start", "items"] },
            ],
            template: "{{ x }}",
          },
          { parentId: "it" },
        ),
        end("end", [["out", ["it", "output"]]]),
      ],
      [e("start", "it"), e("it", "end"), e("itstart", "body")],
    );
    const r = run(w);
    expect(r.diagnostics, show(r)).toEqual([]);
  });

  it("legacy iteration layout: start_node_id is the first child", () => {
    const w = wf(
      "workflow",
      [
        start([["items", "array[string]"]]),
        n("it", "iteration", {
          iterator_selector: ["start", "items"],
          output_selector: ["body", "output"],
          start_node_id: "body",
        }),
        n(
          "body",
          "template-transform",
          {
            variables: [{ variable: "x", value_selector: ["it", "item"] }],
            template: "{{ x }}",
            isIterationStart: true,
          },
          { parentId: "it" },
        ),
        n(
          "body2",
          "template-transform",
          { variables: [{ variable: "x", value_selector: ["body", "output"] }], template: "{{ x }}" },
          { parentId: "it" },
        ),
        end("end", [["out", ["it", "output"]]]),
      ],
      [e("start", "it"), e("it", "end"), e("body", "body2")],
    );
    const r = run(w);
    expect(errors(r), show(r)).toEqual([]);
  });

  it("loop with loop variables and a body that reads them", () => {
    const w = wf(
      "workflow",
      [
        start(),
        n("lp", "loop", {
          loop_count: 3,
          loop_variables: [{ label: "num", var_type: "number", value_type: "constant", value: 0 }],
          break_conditions: [{ variable_selector: ["lp", "num"], comparison_operator: "≥", value: "3" }],
          logical_operator: "and",
        }),
        n("ls", "loop-start", {}, { parentId: "lp" }),
        n(
          "inner",
          "template-transform",
          { variables: [{ variable: "n", value_selector: ["lp", "num"] }], template: "{{ n }}" },
          { parentId: "lp" },
        ),
        end("end", [
          ["num", ["lp", "num"]],
          ["rounds", ["lp", "loop_round"]],
        ]),
      ],
      [e("start", "lp"), e("lp", "end"), e("ls", "inner")],
    );
    const r = run(w);
    expect(errors(r), show(r)).toEqual([]);
  });

  it("legacy [start, 'sys.query'] selector in a chat app", () => {
    const w = wf(
      "advanced-chat",
      [
        start([]),
        tt("t", [["q", ["start", "sys.query"]]]),
        n("answer", "answer", { answer: "{{#t.output#}} {{#start.sys.query#}}" }),
      ],
      chain("start", "t", "answer"),
    );
    const r = run(w);
    expect(r.diagnostics, show(r)).toEqual([]);
  });
});
