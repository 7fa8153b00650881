import { describe, expect, it } from "vitest";
import { applied, diamond, edgeList, failure, nodeIds, nodeIn, READER_ENV } from "./graphs.js";

describe("remove_node", () => {
  it("drops the node and every edge it is on, reconnecting nothing", () => {
    const g = applied(diamond(), { kind: "remove_node", id: "b" });
    expect(nodeIds(g)).not.toContain("b");
    expect(edgeList(g)).toEqual(["a>c", "c>d", "d>end", "start>a"]);
    // References are left for the document's checker (the analyser or the compact reader) to report.
    expect(JSON.stringify(nodeIn(g, "d").config)).toContain('["b","output"]');
  });

  it("means the same on a compact graph, and may remove any node", () => {
    expect(edgeList(applied(diamond(), { kind: "remove_node", id: "start" }, READER_ENV))).not.toContain("start>a");
  });

  it("names the unknown node", () => {
    expect(failure(diamond(), { kind: "remove_node", id: "ghost" })).toMatchObject({
      code: "edit.unknown_node",
      nodeId: "ghost",
      field: "id",
    });
  });
});
