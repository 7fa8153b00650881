import { describe, expect, it } from "vitest";
import { applyWorkflowEdit as applyEdit, diamond, edgeList, failure, mined, nodeIn } from "./graphs.js";

const email = { id: "email", type: "tool-call", config: { candidates: ["get_email"] } };
const conditions = [{ selector: ["plan", "text"], operator: "contains", value: "email" }];

describe("add_branch", () => {
  it("a new if-else case whose node joins at the merge, which reads it", () => {
    const r = applyEdit(mined("abd", "acd"), {
      kind: "add_branch",
      ifElse: "choice1",
      conditions,
      node: email,
      join: "merge1",
    });
    if (!r.ok) throw new Error(JSON.stringify(r.diagnostics));
    expect((nodeIn(r.workflow, "choice1").config as any).cases.map((c: any) => c.case_id)).toEqual(["c1", "c2"]);
    expect(edgeList(r.workflow)).toEqual(expect.arrayContaining(["choice1:c2>email", "email>merge1"]));
    expect((nodeIn(r.workflow, "merge1").config as any).variables).toContainEqual(["email", "result"]);
  });

  it("names a node that is not an if-else", () => {
    expect(failure(diamond(), { kind: "add_branch", ifElse: "a", conditions, node: email, join: "d" })).toMatchObject({
      code: "edit.wrong_type",
      nodeId: "a",
      field: "ifElse",
    });
  });
});
