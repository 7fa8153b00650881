import { describe, expect, it } from "vitest";
import { knowledgePath, parseKnowledgePath, parseRoute, routePath } from "../src/routePath";

describe("studio deep links", () => {
  it("reads the app list, an app and one of its runs from a path", () => {
    expect(parseRoute("/")).toEqual({});
    expect(parseRoute("/apps/01ABC")).toEqual({ appId: "01ABC" });
    expect(parseRoute("/apps/01ABC/")).toEqual({ appId: "01ABC" });
    expect(parseRoute("/apps/01ABC/runs/r-9")).toEqual({ appId: "01ABC", runId: "r-9" });
  });

  it("names nothing for paths that are not the studio's", () => {
    expect(parseRoute("/apps")).toEqual({});
    expect(parseRoute("/apps/a/runs")).toEqual({});
    expect(parseRoute("/apps/a/b")).toEqual({});
    expect(parseRoute("/v1/workflows/run")).toEqual({});
    expect(parseRoute("/apps/%E0%A4%A")).toEqual({});
  });

  it("writes the paths it reads, escaping what ids may hold", () => {
    expect(routePath({})).toBe("/");
    expect(routePath({ appId: "a b" })).toBe("/apps/a%20b");
    expect(routePath({ appId: "a", runId: "r/1" })).toBe("/apps/a/runs/r%2F1");
    for (const r of [{ appId: "a b" }, { appId: "x", runId: "r/1" }]) expect(parseRoute(routePath(r))).toEqual(r);
  });

  it("reads and writes the Knowledge section's paths, and names nothing for others", () => {
    expect(parseKnowledgePath("/knowledge")).toEqual({});
    expect(parseKnowledgePath("/knowledge/")).toEqual({});
    expect(parseKnowledgePath("/knowledge/kb%201")).toEqual({ baseId: "kb 1" });
    expect(parseKnowledgePath("/knowledge/%E0%A4%A")).toEqual({});
    expect(parseKnowledgePath("/knowledge/a/b")).toBeUndefined();
    expect(parseKnowledgePath("/knowledgebase")).toBeUndefined();
    expect(parseKnowledgePath("/apps/knowledge")).toBeUndefined();
    expect(parseRoute("/knowledge/x")).toEqual({});
    for (const id of [undefined, "kb 1", "a/b"])
      expect(parseKnowledgePath(knowledgePath(id))).toEqual(id ? { baseId: id } : {});
  });
});
