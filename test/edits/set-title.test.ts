import { describe, expect, it } from "vitest";
import { applied, diamond, failure, nodeIn } from "./graphs.js";

describe("set_title", () => {
  it("retitles the node", () => {
    expect(nodeIn(applied(diamond(), { kind: "set_title", id: "c", title: "See" }), "c").title).toBe("See");
  });

  it("names the unknown node", () => {
    expect(failure(diamond(), { kind: "set_title", id: "z", title: "Z" })).toMatchObject({
      code: "edit.unknown_node",
      nodeId: "z",
    });
  });
});
