import { describe, expect, it } from "vitest";
import { applied, diamond, edgeList, failure } from "./graphs.js";

describe("reconnect_edge", () => {
  it("moves an edge's source or target", () => {
    const g = applied(diamond(), { kind: "reconnect_edge", source: "a", target: "c", to: { source: "b" } });
    expect(edgeList(g)).toContain("b>c");
    expect(edgeList(g)).not.toContain("a>c");
  });

  it("names the unknown new end", () => {
    expect(
      failure(diamond(), { kind: "reconnect_edge", source: "a", target: "c", to: { target: "nowhere" } }),
    ).toMatchObject({
      code: "edit.unknown_node",
      nodeId: "nowhere",
      field: "to.target",
    });
  });
});
