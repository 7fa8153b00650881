import { describe, expect, it } from "vitest";
import { applyWorkflowEdit as applyEdit, diamond, edgeList, failure, mined, nodeIn } from "./graphs.js";

const email = { id: "email", type: "tool-call", config: { candidates: ["get_email"] } };

describe("add_parallel_branch", () => {
  it("from → node → join, and the join reads it", () => {
    const r = applyEdit(mined("ab"), { kind: "add_parallel_branch", from: "plan", node: email, join: "synth" });
    if (!r.ok) throw new Error(JSON.stringify(r.diagnostics));
    expect(edgeList(r.workflow)).toEqual(expect.arrayContaining(["plan>email", "email>synth", "plan>call1"]));
    expect(JSON.stringify(nodeIn(r.workflow, "synth").config)).toContain("{{#email.result#}}");
  });

  it("names `from` and `join` in different containers", () => {
    const g = diamond();
    nodeIn(g, "d").parentId = "c";
    expect(failure(g, { kind: "add_parallel_branch", from: "a", node: email, join: "d" })).toMatchObject({
      code: "edit.bad_position",
      nodeId: "a",
      field: "join",
    });
  });
});
