import { describe, expect, it } from "vitest";
import { applied, applyWorkflowEdit as applyEdit, diamond, edgeList, failure, mined, nodeIn } from "./graphs.js";

describe("replace_node", () => {
  it("merges config fields by default, or replaces the config; id and edges stay", () => {
    const merged = applied(diamond(), { kind: "replace_node", id: "a", config: { template: "y" } });
    expect(nodeIn(merged, "a").config).toMatchObject({ template: "y", variables: [] });
    const replaced = applied(diamond(), { kind: "replace_node", id: "a", config: { template: "y" }, merge: false });
    expect(nodeIn(replaced, "a").config).toEqual({ template: "y" });
    expect(edgeList(replaced)).toEqual(edgeList(diamond()));
  });

  it("a new type: readers of the old main output read the new one", () => {
    const r = applyEdit(mined("ab"), {
      kind: "replace_node",
      id: "call2",
      type: "template-transform",
      config: { template: "fixed", variables: [] },
      merge: false,
    });
    if (!r.ok) throw new Error(JSON.stringify(r.diagnostics));
    expect(JSON.stringify(nodeIn(r.workflow, "synth").config)).toContain("{{#call2.output#}}");
  });

  it("start and end keep their type", () => {
    expect(failure(diamond(), { kind: "replace_node", id: "start", type: "code" })).toMatchObject({
      code: "edit.protected_node",
      nodeId: "start",
      field: "type",
    });
  });
});
