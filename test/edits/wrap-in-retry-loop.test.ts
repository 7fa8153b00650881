import { describe, expect, it } from "vitest";
import { applyWorkflowEdit as applyEdit, diamond, edgeList, failure, mined, nodeIn } from "./graphs.js";

describe("wrap_in_retry_loop", () => {
  it("moves a chain into a loop and points readers at the kept result", () => {
    const r = applyEdit(mined("abc"), { kind: "wrap_in_retry_loop", nodes: ["call2"], rounds: 2 });
    if (!r.ok) throw new Error(JSON.stringify(r.diagnostics));
    expect(nodeIn(r.workflow, "retry_call2")).toMatchObject({ type: "loop", config: { loop_count: 2 } });
    expect(nodeIn(r.workflow, "call2").parentId).toBe("retry_call2");
    expect(edgeList(r.workflow)).toEqual(expect.arrayContaining(["call1>retry_call2", "retry_call2>call3"]));
    expect(JSON.stringify(nodeIn(r.workflow, "synth").config)).toContain("{{#retry_call2.last#}}");
  });

  it("names a list that is not a chain, and a protected node", () => {
    expect(failure(diamond(), { kind: "wrap_in_retry_loop", nodes: ["a", "b"] })).toMatchObject({
      code: "edit.not_a_chain",
      nodeId: "a",
      field: "nodes",
    });
    expect(failure(diamond(), { kind: "wrap_in_retry_loop", nodes: ["end"] }).code).toBe("edit.protected_node");
  });
});
