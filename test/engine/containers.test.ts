import { describe, expect, it } from "vitest";
import { runWorkflow } from "../../src/engine/run.js";
import { buildWorkflow, tpl } from "../support/build.js";
import { withSleepNode } from "../support/test-nodes.js";

const startList = { id: "start", type: "start", variables: [{ variable: "items", type: "json_object" }] };

function iterationWf(extra: Record<string, unknown>, body = "[{{ item }}]") {
  return buildWorkflow({
    nodes: [
      startList,
      {
        id: "it",
        type: "iteration",
        iterator_selector: ["start", "items", "list"],
        output_selector: ["inner", "output"],
        start_node_id: "it_start",
        ...extra,
      },
      { id: "it_start", type: "iteration-start", parentId: "it" },
      { ...tpl("inner", body, { item: ["it", "item"], index: ["it", "index"] }), parentId: "it" },
      { id: "end", type: "end", outputs: [{ variable: "out", value_selector: ["it", "output"] }] },
    ],
    edges: [
      ["start", "it"],
      ["it_start", "inner"],
      ["it", "end"],
    ],
  });
}

describe("iteration", () => {
  it("collects outputs in item order, sequentially and in parallel", async () => {
    for (const par of [false, true]) {
      const wf = iterationWf({ is_parallel: par, parallel_nums: 3 }, "{{ index }}:{{ item }}");
      const r = await runWorkflow(wf, { inputs: { items: { list: ["a", "b", "c", "d"] } } });
      expect(r.status).toBe("succeeded");
      expect(r.outputs.out).toEqual(["0:a", "1:b", "2:c", "3:d"]);
      expect(r.trace.filter((t) => t.nodeId === "inner").map((t) => t.key)).toHaveLength(4);
    }
  });

  it("parallel iteration overlaps items up to parallel_nums", async () => {
    const wf = buildWorkflow({
      nodes: [
        startList,
        {
          id: "it",
          type: "iteration",
          iterator_selector: ["start", "items", "list"],
          output_selector: ["s", "done"],
          is_parallel: true,
          parallel_nums: 4,
        },
        { id: "it_start", type: "iteration-start", parentId: "it" },
        { id: "s", type: "test-sleep", ms: 80, parentId: "it" },
        { id: "end", type: "end", outputs: [{ variable: "out", value_selector: ["it", "output"] }] },
      ],
      edges: [
        ["start", "it"],
        ["it_start", "s"],
        ["it", "end"],
      ],
    });
    const t0 = Date.now();
    const r = await runWorkflow(wf, { inputs: { items: { list: [1, 2, 3, 4] } }, nodeTypes: withSleepNode });
    expect(r.status).toBe("succeeded");
    expect(Date.now() - t0).toBeLessThan(80 * 3);
  });

  it("empty and null iterators give []; a non-array fails", async () => {
    const wf = iterationWf({});
    expect((await runWorkflow(wf, { inputs: { items: { list: [] } } })).outputs.out).toEqual([]);
    expect((await runWorkflow(wf, { inputs: { items: { list: null } } })).outputs.out).toEqual([]);
    const bad = await runWorkflow(wf, { inputs: { items: { list: "nope" } } });
    expect(bad.status).toBe("failed");
    expect(bad.error?.code).toBe("iteration.not_array");
  });

  it("flattens list outputs by default and keeps them nested when flatten_output is false", async () => {
    const body = "{{ [item, item] | tojson }}";
    // template output is a string, so build list-valued items through the start input instead
    const wf = buildWorkflow({
      nodes: [
        startList,
        {
          id: "it",
          type: "iteration",
          iterator_selector: ["start", "items", "list"],
          output_selector: ["agg", "output"],
        },
        { id: "it_start", type: "iteration-start", parentId: "it" },
        { id: "agg", type: "variable-aggregator", variables: [["it", "item"]], parentId: "it" },
        { id: "end", type: "end", outputs: [{ variable: "out", value_selector: ["it", "output"] }] },
      ],
      edges: [
        ["start", "it"],
        ["it_start", "agg"],
        ["it", "end"],
      ],
    });
    expect(body).toBeTruthy();
    const r = await runWorkflow(wf, { inputs: { items: { list: [[1, 2], [3]] } } });
    expect(r.outputs.out).toEqual([1, 2, 3]);
    wf.nodes[1]!.config.flatten_output = false;
    const { WorkflowSchema } = await import("../../src/ir/workflow.js");
    const r2 = await runWorkflow(WorkflowSchema.parse(structuredClone(wf)), {
      inputs: { items: { list: [[1, 2], [3]] } },
    });
    expect(r2.outputs.out).toEqual([[1, 2], [3]]);
  });

  it("error modes: terminated fails, continue-on-error keeps null, remove-abnormal-output drops", async () => {
    // the body fails when the item is "x" (if-else on a missing variable fails the node)
    const mk = (mode: string) =>
      buildWorkflow({
        nodes: [
          startList,
          {
            id: "it",
            type: "iteration",
            iterator_selector: ["start", "items", "list"],
            output_selector: ["inner", "output"],
            error_handle_mode: mode,
          },
          { id: "it_start", type: "iteration-start", parentId: "it" },
          {
            ...tpl("inner", "{% if item == 'x' %}{{ item | nosuchfilter }}{% endif %}{{ item }}", {
              item: ["it", "item"],
            }),
            parentId: "it",
          },
          { id: "end", type: "end", outputs: [{ variable: "out", value_selector: ["it", "output"] }] },
        ],
        edges: [
          ["start", "it"],
          ["it_start", "inner"],
          ["it", "end"],
        ],
      });
    const inputs = { items: { list: ["a", "x", "b"] } };
    const t = await runWorkflow(mk("terminated"), { inputs });
    expect(t.status).toBe("failed");
    expect(t.error?.code).toBe("iteration.item_failed");
    expect((await runWorkflow(mk("continue-on-error"), { inputs })).outputs.out).toEqual(["a", null, "b"]);
    expect((await runWorkflow(mk("remove-abnormal-output"), { inputs })).outputs.out).toEqual(["a", "b"]);
  });
});

describe("loop", () => {
  // Mirrors Dify's fixture increment_loop_with_break_condition_workflow.yml: expects {"num": 5}.
  const loopWf = (count: number, breakAt: string | null) =>
    buildWorkflow({
      nodes: [
        { id: "start", type: "start", variables: [] },
        {
          id: "loop",
          type: "loop",
          loop_count: count,
          start_node_id: "loopstart",
          loop_variables: [{ label: "num", var_type: "number", value_type: "constant", value: "1" }],
          break_conditions:
            breakAt === null ? [] : [{ variable_selector: ["loop", "num"], comparison_operator: "≥", value: breakAt }],
          logical_operator: "and",
        },
        { id: "loopstart", type: "loop-start", parentId: "loop" },
        {
          id: "inc",
          type: "assigner",
          version: "2",
          parentId: "loop",
          items: [{ variable_selector: ["loop", "num"], input_type: "constant", operation: "+=", value: 1 }],
        },
        {
          id: "end",
          type: "end",
          outputs: [
            { variable: "num", value_selector: ["loop", "num"] },
            { variable: "rounds", value_selector: ["loop", "loop_round"] },
          ],
        },
      ],
      edges: [
        ["start", "loop"],
        ["loopstart", "inc"],
        ["loop", "end"],
      ],
    });

  it("increments until the break condition holds", async () => {
    const r = await runWorkflow(loopWf(10, "5"));
    expect(r.status).toBe("succeeded");
    expect(r.outputs).toEqual({ num: 5, rounds: 4 });
  });

  it("stops at loop_count without a break condition", async () => {
    const r = await runWorkflow(loopWf(3, null));
    expect(r.outputs).toEqual({ num: 4, rounds: 3 });
  });

  it("checks break conditions before the first round", async () => {
    const r = await runWorkflow(loopWf(10, "1"));
    expect(r.outputs).toEqual({ num: 1, rounds: 0 });
  });
});

describe("advanced-chat", () => {
  it("concatenates answers, streams chunks, and persists conversation variables", async () => {
    const wf = buildWorkflow({
      mode: "advanced-chat",
      conversation_variables: [{ name: "count", value_type: "number", value: 0 }],
      nodes: [
        { id: "start", type: "start", variables: [] },
        { id: "a1", type: "answer", answer: "You said: {{#sys.query#}}. " },
        {
          id: "inc",
          type: "assigner",
          version: "2",
          items: [{ variable_selector: ["conversation", "count"], input_type: "constant", operation: "+=", value: 1 }],
        },
        { id: "a2", type: "answer", answer: "Turn {{#conversation.count#}}" },
      ],
      edges: [
        ["start", "a1"],
        ["a1", "inc"],
        ["inc", "a2"],
      ],
    });
    const chunks: string[] = [];
    const r = await runWorkflow(wf, {
      sys: { query: "hello" },
      conversation: { count: 2 },
      onEvent: (e) => e.type === "text_chunk" && chunks.push(e.text),
    });
    expect(r.outputs.answer).toBe("You said: hello. Turn 3");
    expect(chunks).toEqual(["You said: hello. ", "Turn 3"]);
    expect(r.conversation.count).toBe(3);
  });
});
