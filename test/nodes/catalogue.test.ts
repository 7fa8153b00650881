import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { NodeTypeDef } from "../../src/ir/registry.js";
import { NodeCatalogue, NodeCatalogueError, nodeCatalogue, nodeDefinitions } from "../../src/nodes/index.js";

const nodesDir = resolve(import.meta.dirname, "../../src/nodes");

const def = (type: string, aliases?: string[]): NodeTypeDef => ({
  type,
  aliases,
  label: type,
  category: "transform",
  purpose: "test only",
  configSchema: z.object({}).loose(),
  outputs: () => [],
  inputs: () => [],
  ports: () => ["source"],
});

function thrown(f: () => unknown): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  return undefined;
}

describe("the node catalogue", () => {
  it("holds every node a file in src/nodes defines", async () => {
    const files = readdirSync(nodesDir).filter(
      (f) => /\.ts$/.test(f) && /=\s*defineNode\b/.test(readFileSync(join(nodesDir, f), "utf8")),
    );
    expect(files.length).toBeGreaterThan(20);
    const catalogued = new Set(nodeCatalogue.all());
    for (const f of files) {
      const mod = (await import(join(nodesDir, f))) as Record<string, unknown>;
      const defined = Object.values(mod).filter(
        (v): v is NodeTypeDef => nodeDefinitions.includes(v as never) || isDefinition(v),
      );
      expect(defined.length, `${f} exports no node definition`).toBeGreaterThan(0);
      for (const d of defined) expect(catalogued.has(d), `${f}: ${d.type} is not in the catalogue`).toBe(true);
    }
  });

  it("looks types up by name and by alias, and lists them in order", () => {
    expect(nodeCatalogue.get("llm")?.type).toBe("llm");
    expect(nodeCatalogue.get("variable-assigner")?.type).toBe("variable-aggregator");
    expect(nodeCatalogue.get("no-such-node")).toBeUndefined();
    expect(
      nodeCatalogue
        .all()
        .map((d) => d.type)
        .slice(0, 3),
    ).toEqual(["start", "end", "answer"]);
  });

  it("refuses a type defined twice, or an alias already taken, with coded errors", () => {
    const dupType = thrown(() => new NodeCatalogue([def("a"), def("b"), def("a")]));
    expect(dupType).toBeInstanceOf(NodeCatalogueError);
    expect(dupType).toMatchObject({ code: "node.type_duplicate" });
    expect(thrown(() => new NodeCatalogue([def("a", ["x"]), def("b", ["x"])]))).toMatchObject({
      code: "node.alias_duplicate",
    });
    expect(thrown(() => new NodeCatalogue([def("a"), def("b", ["a"])]))).toMatchObject({
      code: "node.alias_duplicate",
    });
    expect(thrown(() => nodeCatalogue.with(def("llm")))).toMatchObject({ code: "node.type_duplicate" });
  });

  it("is not changed by extending it", () => {
    const more = nodeCatalogue.with(def("test-extra", ["test-extra-old"]));
    expect(more.get("test-extra-old")?.type).toBe("test-extra");
    expect(nodeCatalogue.get("test-extra")).toBeUndefined();
    expect(more.all()).toHaveLength(nodeCatalogue.all().length + 1);
  });
});

function isDefinition(v: unknown): v is NodeTypeDef {
  const d = v as Partial<NodeTypeDef> | null;
  return (
    !!d &&
    typeof d === "object" &&
    typeof d.type === "string" &&
    typeof d.outputs === "function" &&
    typeof d.ports === "function" &&
    !!d.configSchema
  );
}
