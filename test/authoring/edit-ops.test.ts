// The chat wire form of the edit algebra: the operations a model writes in edit_workflow (and the
// proposals API takes as `edits`), applied to the compact workflow it was shown.
import { describe, expect, it } from "vitest";
import { applyOps } from "../../src/authoring/edit/ops.js";
import type { CompactWorkflow } from "../../src/dsl/compact/project.js";

const shown = (): CompactWorkflow => ({
  nodes_info: [
    { id: "1", type: "start", title: "Start", param: { variables: [["q", "string"]] } },
    {
      id: "2",
      type: "template-transform",
      title: "Wrap",
      param: { variables: [["q", ["q", "1"]]], template: "<{{ q }}>" },
    },
    { id: "3", type: "template-transform", title: "Note", param: { variables: [], template: "n" } },
    { id: "4", type: "end", param: { outputs: [["wrapped", ["output", "2"]]] } },
  ],
  edges: [
    ["1", 0, "2"],
    ["1", 0, "3"],
    ["2", 0, "4"],
  ],
});

/** A model's edits as replayed in the studio's review test (test/server/e2e.test.ts). */
const reviewEdits = [
  { op: "set_param", id: "2", field: "template", value: "<<{{ q }}>>" },
  {
    op: "add_node",
    node: {
      id: "5",
      type: "template-transform",
      title: "Shout",
      param: { variables: [["w", ["output", "2"]]], template: "{{ w }}!" },
    },
  },
  { op: "remove_node", id: "3" },
  { op: "remove_edge", edge: ["2", 0, "4"] },
  { op: "add_edge", edge: ["2", 0, "5"] },
  { op: "add_edge", edge: ["5", 0, "4"] },
  { op: "set_param", id: "4", field: "outputs", value: [["wrapped", ["output", "5"]]] },
];

describe("chat edit operations", () => {
  it("apply in order to a copy of the shown compact workflow", () => {
    const before = shown();
    const r = applyOps(before, reviewEdits);
    expect(r.diagnostics).toEqual([]);
    expect(before).toEqual(shown());
    expect(r.compact).toEqual({
      nodes_info: [
        { id: "1", type: "start", title: "Start", param: { variables: [["q", "string"]] } },
        {
          id: "2",
          type: "template-transform",
          title: "Wrap",
          param: { variables: [["q", ["q", "1"]]], template: "<<{{ q }}>>" },
        },
        { id: "4", type: "end", param: { outputs: [["wrapped", ["output", "5"]]] } },
        {
          id: "5",
          type: "template-transform",
          title: "Shout",
          param: { variables: [["w", ["output", "2"]]], template: "{{ w }}!" },
        },
      ],
      edges: [
        ["1", 0, "2"],
        ["2", 0, "5"],
        ["5", 0, "4"],
      ],
    });
  });

  it("remove_node drops the node's edges and reconnects nothing", () => {
    expect(applyOps(shown(), [{ op: "remove_node", id: "2" }]).compact?.edges).toEqual([["1", 0, "3"]]);
  });

  it("are a batch: an edge may come before the node it names; numeric ids are read as strings", () => {
    const r = applyOps(shown(), [
      { op: "add_edge", edge: [3, 0, "5"] },
      { op: "add_node", node: { id: 5, type: "code" } },
    ]);
    expect(r.compact?.edges).toContainEqual(["3", 0, "5"]);
    expect(r.compact?.nodes_info.at(-1)).toEqual({ id: "5", type: "code", param: {} });
  });

  it("keep a param written with a `__proto__` key as written", () => {
    const node = JSON.parse('{"id":"5","type":"code","param":{"__proto__":{"x":1}}}');
    const r = applyOps(shown(), [{ op: "add_node", node }]);
    expect(Object.hasOwn(r.compact!.nodes_info.at(-1)!.param, "__proto__")).toBe(true);
  });

  it("reject the whole list on any bad operation, each problem coded and naming the node and field", () => {
    const r = applyOps(shown(), [
      { op: "set_title", id: "9", title: "Nine" },
      { op: "add_edge", edge: ["1", 0, "2"] },
      { op: "remove_edge", edge: ["1", "0", "2"] },
      { op: "set_param", id: "2", field: "template.x", value: 1 },
      { op: "teleport" },
    ]);
    expect(r.compact).toBeUndefined();
    expect(r.diagnostics.map((d) => [d.code, d.nodeId, d.field])).toEqual([
      ["edit.unknown_node", "9", "edits[0].id"],
      ["edit.duplicate_edge", "1", "edits[1].edge"],
      ["edit.unknown_edge", "1", "edits[2].edge"],
      ["edit.not_an_object", "2", "edits[3].field"],
      ["edit.bad_op", undefined, "edits[4].op"],
    ]);
    expect(r.diagnostics[0]!.message).toBe('edits[0]: there is no node "9"');
    expect(applyOps(shown(), []).diagnostics.map((d) => d.code)).toEqual(["edit.bad_ops"]);
  });
});
