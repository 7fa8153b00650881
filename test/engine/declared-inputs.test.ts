// declaredInputs keeps the parsed start node of a frozen workflow (a store's shared published one) and parses
// any other again, so an edited start node is always seen.
import { describe, expect, it } from "vitest";
import { declaredInputs } from "../../src/engine/inputs.js";
import type { Workflow } from "../../src/ir/workflow.js";
import { buildWorkflow } from "../support/build.js";

const workflow = (name: string): Workflow =>
  buildWorkflow({
    nodes: [
      { id: "start", type: "start", variables: [{ variable: name, type: "text-input", required: true }] },
      { id: "end", type: "end", outputs: [{ variable: "out", value_selector: ["start", name] }] },
    ],
    edges: [["start", "end"]],
  });

function deepFreeze<T>(v: T): T {
  if (v !== null && typeof v === "object") {
    Object.freeze(v);
    for (const c of Object.values(v)) deepFreeze(c);
  }
  return v;
}

describe("declaredInputs", () => {
  it("parses a frozen workflow's start node once", () => {
    const wf = deepFreeze(workflow("text"));
    const first = declaredInputs(wf);
    expect(first?.variables.map((v) => v.variable)).toEqual(["text"]);
    expect(declaredInputs(wf)).toBe(first);
  });

  it("sees an edit to a workflow that is not frozen", () => {
    const wf = workflow("text");
    expect(declaredInputs(wf)?.variables.map((v) => v.variable)).toEqual(["text"]);
    const start = wf.nodes.find((n) => n.id === "start")!;
    (start.config.variables as Array<{ variable: string }>)[0]!.variable = "query";
    expect(declaredInputs(wf)?.variables.map((v) => v.variable)).toEqual(["query"]);
  });
});
