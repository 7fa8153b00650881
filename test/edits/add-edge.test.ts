import { describe, expect, it } from "vitest";
import { applied, diamond, edgeList, failure, READER_ENV } from "./graphs.js";

describe("add_edge", () => {
  it("adds an edge on the default port, or on a named or (compact) numbered one", () => {
    expect(edgeList(applied(diamond(), { kind: "add_edge", source: "b", target: "c" }))).toContain("b>c");
    expect(edgeList(applied(diamond(), { kind: "add_edge", source: "b", sourcePort: 0, target: "c" }))).toContain(
      "b:0>c",
    );
  });

  it("checks both ends at once, except in a batch, where a later edit may add them", () => {
    expect(failure(diamond(), { kind: "add_edge", source: "b", target: "later" })).toMatchObject({
      code: "edit.unknown_node",
      nodeId: "later",
      field: "target",
    });
    const batch = applied(
      diamond(),
      { kind: "add_edge", source: "b", target: "later" },
      { ...READER_ENV, batch: true },
    );
    expect(edgeList(batch)).toContain("b>later");
  });

  it("names a duplicate edge", () => {
    expect(failure(diamond(), { kind: "add_edge", source: "a", target: "b" })).toMatchObject({
      code: "edit.duplicate_edge",
      nodeId: "a",
      field: "edge",
    });
  });
});
