import { describe, expect, it } from "vitest";
import { applyWorkflowEdit as applyEdit, mined, nodeIn } from "./graphs.js";

const conditions = [{ selector: ["call1", "result"], operator: "not empty" }];

describe("refine_branch", () => {
  it("replaces a case's conditions and operator", () => {
    const r = applyEdit(mined("abd", "acd"), {
      kind: "refine_branch",
      ifElse: "choice1",
      caseId: "c1",
      conditions,
      logical_operator: "or",
    });
    if (!r.ok) throw new Error(JSON.stringify(r.diagnostics));
    expect((nodeIn(r.workflow, "choice1").config as any).cases[0]).toMatchObject({
      logical_operator: "or",
      conditions: [{ variable_selector: ["call1", "result"], comparison_operator: "not empty" }],
    });
  });

  it("names the unknown case", () => {
    const r = applyEdit(mined("abd", "acd"), { kind: "refine_branch", ifElse: "choice1", caseId: "c9", conditions });
    expect(r.ok ? [] : r.diagnostics).toEqual([
      expect.objectContaining({ code: "edit.unknown_case", nodeId: "choice1", field: "caseId" }),
    ]);
  });
});
