import { describe, expect, it } from "vitest";
import { omit, setDefault } from "../../src/dsl/dify/util.js";
import { WorkflowSchema, WorkflowShapeSchema } from "../../src/ir/workflow.js";

// The importer checks its own output with WorkflowShapeSchema (records checked, not copied): it must accept and
// refuse exactly what WorkflowSchema does for the shapes an importer can build.
const base = {
  weft: 1,
  name: "w",
  description: "",
  mode: "workflow",
  nodes: [{ id: "a", type: "start", title: "", config: { x: 1 }, canvas: { position: { x: 0, y: 0 } } }],
  edges: [{ source: "a", sourcePort: "source", target: "b", canvas: { type: "custom" } }],
  environment_variables: [],
  conversation_variables: [],
  features: {},
  meta: { dify: {} },
};

describe("WorkflowShapeSchema agrees with WorkflowSchema", () => {
  const cases: Array<[string, unknown]> = [
    ["a whole workflow", base],
    ["config not a mapping", { ...base, nodes: [{ ...base.nodes[0], config: [1] }] }],
    ["canvas null", { ...base, nodes: [{ ...base.nodes[0], canvas: null }] }],
    ["edge canvas a string", { ...base, edges: [{ ...base.edges[0], canvas: "x" }] }],
    ["empty node id", { ...base, nodes: [{ ...base.nodes[0], id: "" }] }],
    ["features a list", { ...base, features: [] }],
    ["meta a number", { ...base, meta: 3 }],
    ["unknown mode", { ...base, mode: "chat" }],
  ];
  it.each(cases)("%s", (_, wf) => {
    expect(WorkflowShapeSchema.safeParse(wf).success).toBe(WorkflowSchema.safeParse(wf).success);
  });
  it("refuses what it should (the check can fail)", () => {
    expect(WorkflowShapeSchema.safeParse(cases[1]![1]).success).toBe(false);
  });
});

describe("omit and setDefault keep hostile keys as data", () => {
  it("a __proto__ key read from a file stays an own property and never becomes the prototype", () => {
    const hostile = JSON.parse('{"__proto__": {"polluted": true}, "type": "x", "keep": 1}') as Record<string, unknown>;
    const out = omit(hostile, ["type"]);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.keys(out)).toEqual(["__proto__", "keep"]);
    expect((out as { polluted?: boolean }).polluted).toBeUndefined();
    expect(Object.getOwnPropertyDescriptor(out, "__proto__")?.value).toEqual({ polluted: true });
  });
  it("setDefault adds a missing key and leaves a present one", () => {
    const o: Record<string, unknown> = { a: 1 };
    setDefault(o, "a", 2);
    setDefault(o, "b", 3);
    expect(o).toEqual({ a: 1, b: 3 });
  });
});
