/// <reference types="node" />
// The fixture diffs come from the server's own diffWorkflows, which runs on Node.
import { describe, expect, it } from "vitest";
import { diffWorkflows } from "../../src/ir/diff";
import { WorkflowSchema } from "../../src/ir/workflow";
import { valueText } from "../src/labels";
import { diffCounts, edgeKey, nodeReview, ReviewError, reviewView } from "../src/review/view";
import type { Workflow, WorkflowDiff } from "../src/types";

// The same diff the server sends, computed by the server's own function on two real workflows.
const base = WorkflowSchema.parse({
  name: "t",
  mode: "workflow",
  nodes: [
    {
      id: "start",
      type: "start",
      title: "Start",
      config: { variables: [{ variable: "q", type: "text-input" }] },
      canvas: { position: { x: 0, y: 0 } },
    },
    {
      id: "wrap",
      type: "template-transform",
      title: "Wrap",
      config: { variables: [{ variable: "q", value_selector: ["start", "q"] }], template: "[{{ q }}]" },
    },
    {
      id: "old",
      type: "template-transform",
      title: "Old step",
      config: { variables: [], template: "x" },
      canvas: { position: { x: 300, y: 200 } },
    },
    {
      id: "end",
      type: "end",
      title: "End",
      config: { outputs: [{ variable: "out", value_selector: ["wrap", "output"] }] },
    },
  ],
  edges: [
    { source: "start", target: "wrap" },
    { source: "wrap", target: "end" },
    { source: "start", target: "old" },
  ],
});
const after = WorkflowSchema.parse({
  ...base,
  nodes: [
    base.nodes[0],
    { ...base.nodes[1], config: { ...base.nodes[1]!.config, template: "<{{ q }}>" } },
    { id: "shout", type: "template-transform", title: "Shout", config: { variables: [], template: "HEY" } },
    base.nodes[3],
  ],
  edges: [
    { source: "start", target: "wrap" },
    { source: "wrap", target: "shout" },
    { source: "shout", target: "end" },
  ],
});
const diff = diffWorkflows(base, after) as unknown as WorkflowDiff;
const proposal = { id: "p1", diff, workflow: after as unknown as Workflow };

describe("proposal review: diff → highlights", () => {
  it("marks every added, changed and removed node, and nothing else", () => {
    const v = reviewView(proposal);
    expect(v.nodes).toEqual({ wrap: "changed", shout: "added", old: "removed" });
  });

  it("puts removed nodes and edges back as ghosts, keeping the removed node's position", () => {
    const v = reviewView(proposal);
    expect(v.workflow.nodes.map((n) => n.id)).toEqual(["start", "wrap", "shout", "end", "old"]);
    expect(v.workflow.nodes.find((n) => n.id === "old")!.canvas).toEqual({ position: { x: 300, y: 200 } });
    expect(v.workflow.edges.map(edgeKey).sort()).toEqual(
      ["start:source→wrap", "wrap:source→shout", "shout:source→end", "wrap:source→end", "start:source→old"].sort(),
    );
    // The proposal itself is untouched: the ghosts exist only in what the canvas draws.
    expect(proposal.workflow.nodes).toHaveLength(4);
  });

  it("marks added and removed edges by the canvas's edge key; kept edges stay unmarked", () => {
    const v = reviewView(proposal);
    expect(v.edges).toEqual({
      "wrap:source→shout": "added",
      "shout:source→end": "added",
      "wrap:source→end": "removed",
      "start:source→old": "removed",
    });
    expect(v.edges["start:source→wrap"]).toBeUndefined();
  });

  it("a removed duplicate of an edge that stays is not drawn twice", () => {
    const twice = WorkflowSchema.parse({ ...base, edges: [...base.edges, { source: "start", target: "wrap" }] });
    const d = diffWorkflows(twice, base) as unknown as WorkflowDiff;
    const v = reviewView({ id: "p2", diff: d, workflow: base as unknown as Workflow });
    expect(d.edges.removed).toHaveLength(1);
    expect(v.workflow.edges.filter((e) => edgeKey(e) === "start:source→wrap")).toHaveLength(1);
    expect(v.edges["start:source→wrap"]).toBeUndefined();
  });

  it("refuses a proposal without its workflow, naming where to get it", () => {
    expect(() => reviewView({ id: "p3", diff })).toThrow(ReviewError);
    expect(() => reviewView({ id: "p3", diff })).toThrow(/proposals\/p3/);
  });
});

describe("proposal review: the inspector's field changes", () => {
  it("a changed node lists exactly its changed fields, old → new", () => {
    const r = nodeReview(diff, "wrap");
    expect(r).toEqual({
      mark: "changed",
      fields: [
        { path: ["config", "template"], field: "template", kind: "changed", old: "[{{ q }}]", new: "<{{ q }}>" },
      ],
    });
  });

  it("an added node lists its title and each config field as added; a removed one as removed", () => {
    const a = nodeReview(diff, "shout");
    expect(a.mark).toBe("added");
    expect(a.fields.map((f) => [f.field, f.kind, f.new])).toEqual([
      ["title", "added", "Shout"],
      ["variables", "added", []],
      ["template", "added", "HEY"],
    ]);
    const r = nodeReview(diff, "old");
    expect(r.mark).toBe("removed");
    expect(r.fields.find((f) => f.field === "template")).toMatchObject({ kind: "removed", old: "x" });
  });

  it("a node the proposal does not touch says so", () => {
    expect(nodeReview(diff, "start")).toEqual({ mark: "unchanged", fields: [] });
  });

  it("shows text as it is, other values as JSON, long values cut, absent values named", () => {
    expect(valueText(undefined, "a {{x}}")).toBe("a {{x}}");
    expect(valueText(undefined, { a: [1, 2] })).toBe('{"a":[1,2]}');
    expect(valueText(undefined, undefined)).toBe("(none)");
    expect(valueText(undefined, "x".repeat(500), 10)).toBe(`${"x".repeat(9)}…`);
  });

  it("names references by title: a selector, and references in text; bare numbers stay as written", () => {
    const wf = {
      name: "t",
      mode: "workflow",
      nodes: [{ id: "1005", type: "llm", title: "Translate", config: {} }],
      edges: [],
    } as never;
    expect(valueText(wf, ["1005", "text"])).toBe("Translate / text");
    expect(valueText(wf, ["sys", "query"])).toBe("System / query");
    expect(valueText(wf, "Say {{#1005.text#}} in 1005 words")).toBe("Say {Translate / text} in 1005 words");
    expect(valueText(wf, ["a", "b"])).toBe('["a","b"]');
  });

  it("counts the legend from the diff", () => {
    expect(diffCounts(diff)).toEqual({ added: 1, changed: 1, removed: 1, edgesAdded: 2, edgesRemoved: 2, workflow: 0 });
  });
});
