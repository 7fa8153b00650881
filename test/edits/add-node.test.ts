import { describe, expect, it } from "vitest";
import {
  applied,
  applyWorkflowEdit as applyEdit,
  diamond,
  edgeList,
  failure,
  mined,
  nodeIn,
  READER_ENV,
} from "./graphs.js";

const email = { id: "email", type: "tool-call", config: { candidates: ["get_email"] } };

describe("add_node", () => {
  it("alone: a new unconnected node; a workflow completes it (title, model), a compact graph leaves that to its reader", () => {
    const wf = applied(diamond(), { kind: "add_node", node: { id: "x", type: "code", config: { code: "" } } });
    expect(nodeIn(wf, "x")).toMatchObject({ id: "x", type: "code", title: "x" });
    expect(edgeList(wf)).toEqual(edgeList(diamond()));
    const compact = applied(diamond(), { kind: "add_node", node: { id: "x", type: "code" } }, READER_ENV);
    expect(nodeIn(compact, "x")).toEqual({ id: "x", type: "code", config: {} });
  });

  it("after: the successors are rewired through the new node, which is given model and context", () => {
    const r = applyEdit(mined("ab"), { kind: "add_node", node: email, after: "call2" });
    if (!r.ok) throw new Error(JSON.stringify(r.diagnostics));
    expect(edgeList(r.workflow)).toEqual(expect.arrayContaining(["call2>email", "email>synth"]));
    expect((nodeIn(r.workflow, "email").config as any).model.name).toBe("m");
  });

  it("before: inserted between the predecessors and the node", () => {
    const r = applyEdit(mined("ab"), { kind: "add_node", node: email, before: "call2" });
    expect(r.ok && edgeList(r.workflow)).toEqual(expect.arrayContaining(["call1>email", "email>call2"]));
  });

  it("names the duplicate id and a bad position", () => {
    expect(failure(diamond(), { kind: "add_node", node: { id: "a", type: "code" } })).toMatchObject({
      code: "edit.duplicate_id",
      nodeId: "a",
      field: "node.id",
    });
    expect(failure(diamond(), { kind: "add_node", node: { id: "x", type: "code" }, after: "end" })).toMatchObject({
      code: "edit.bad_position",
      nodeId: "end",
      field: "after",
    });
  });
});
