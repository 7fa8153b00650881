import { describe, expect, it } from "vitest";
import { applied, diamond, failure, nodeIn } from "./graphs.js";

describe("set_config", () => {
  it("sets a field, or a dotted path into the config, making missing objects on the way", () => {
    const g = applied(diamond(), { kind: "set_config", id: "a", field: "template", value: "y" });
    expect(nodeIn(g, "a").config.template).toBe("y");
    const deep = applied(diamond(), { kind: "set_config", id: "a", field: "dify.url", value: "u" });
    expect(nodeIn(deep, "a").config.dify).toEqual({ url: "u" });
  });

  it("names the node and field when the path runs through a value that is not an object", () => {
    expect(failure(diamond(), { kind: "set_config", id: "a", field: "template.x", value: 1 })).toMatchObject({
      code: "edit.not_an_object",
      nodeId: "a",
      field: "field",
    });
  });
});
