import { describe, expect, it } from "vitest";
import { applied, diamond, edgeList, failure, nodeIds } from "./graphs.js";

describe("remove_edge", () => {
  it("removes one edge and keeps its nodes", () => {
    const g = applied(diamond(), { kind: "remove_edge", source: "a", target: "b" });
    expect(edgeList(g)).not.toContain("a>b");
    expect(nodeIds(g)).toEqual(nodeIds(diamond()));
  });

  it('names an edge that is not there; port 0 and port "0" are different edges', () => {
    expect(failure(diamond(), { kind: "remove_edge", source: "a", target: "d" })).toMatchObject({
      code: "edit.unknown_edge",
      nodeId: "a",
      field: "edge",
    });
    const g = diamond();
    g.edges.push({ source: "b", sourcePort: 0, target: "c" });
    expect(failure(g, { kind: "remove_edge", source: "b", sourcePort: "0", target: "c" }).code).toBe(
      "edit.unknown_edge",
    );
    expect(edgeList(applied(g, { kind: "remove_edge", source: "b", sourcePort: 0, target: "c" }))).not.toContain(
      "b:0>c",
    );
  });
});
