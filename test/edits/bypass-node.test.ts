import { describe, expect, it } from "vitest";
import { applied, diamond, edgeList, failure, nodeIds, nodeIn } from "./graphs.js";

describe("bypass_node", () => {
  it("on a diamond: the node goes, its predecessor is connected to its successor, references to it are dropped", () => {
    const g = applied(diamond(), { kind: "bypass_node", id: "b" });
    expect(nodeIds(g)).not.toContain("b");
    expect(edgeList(g)).toEqual(["a>c", "a>d", "c>d", "d>end", "start>a"]);
    expect(JSON.stringify(nodeIn(g, "d").config)).not.toContain('["b","output"]');
  });

  it("differs from remove_node on the same diamond only by the reconnection and the dropped references", () => {
    const removed = applied(diamond(), { kind: "remove_node", id: "b" });
    const bypassed = applied(diamond(), { kind: "bypass_node", id: "b" });
    expect(edgeList(bypassed).filter((e) => !edgeList(removed).includes(e))).toEqual(["a>d"]);
    expect(nodeIds(bypassed)).toEqual(nodeIds(removed));
  });

  it("keeps start and end, and refuses a node whose outputs branch", () => {
    expect(failure(diamond(), { kind: "bypass_node", id: "end" })).toMatchObject({
      code: "edit.protected_node",
      nodeId: "end",
      field: "id",
    });
    const branching = diamond();
    for (const e of branching.edges) if (e.source === "a" && e.target === "c") e.sourcePort = "false";
    expect(failure(branching, { kind: "bypass_node", id: "a" })).toMatchObject({
      code: "edit.bad_position",
      nodeId: "a",
    });
  });

  it("takes a container's children with it", () => {
    const g = diamond();
    g.nodes.push({ id: "inner", type: "code", parentId: "b", config: {} });
    expect(nodeIds(applied(g, { kind: "bypass_node", id: "b" }))).not.toContain("inner");
  });
});
