import { readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { analyse } from "../../src/analysis/index.js";
import { loadWorkflowFile } from "../../src/dsl/load.js";
import { nodeCatalogue } from "../../src/nodes/index.js";
import { loadNodeTypes, NODE_TYPES, NodeRegistryError, nodeTypesFor } from "../../src/nodes/registry.js";

const types = async (names: string[]) => (await loadNodeTypes(names)).all().map((d) => d.type);

describe("the node type registry", () => {
  it("lists every type of the full catalogue, in its order, with its aliases", () => {
    expect(NODE_TYPES.map((e) => e.type)).toEqual(nodeCatalogue.all().map((d) => d.type));
    expect(NODE_TYPES.map((e) => e.aliases ?? [])).toEqual(nodeCatalogue.all().map((d) => d.aliases ?? []));
  });

  it("loads the types named, by type or alias, in registry order; unknown names are left out", async () => {
    expect(await types(["end", "code", "start", "no-such-node"])).toEqual(["start", "end", "code"]);
    const byAlias = await loadNodeTypes(["variable-assigner"]);
    expect(byAlias.get("variable-assigner")?.type).toBe("variable-aggregator");
    expect(byAlias.get("variable-assigner")).toBe(nodeCatalogue.get("variable-aggregator"));
  });

  it("adds a container's body-start type and a body-start's container", async () => {
    expect(await types(["iteration"])).toEqual(["iteration", "iteration-start"]);
    expect(await types(["loop-start"])).toEqual(["loop", "loop-start"]);
  });

  it("refuses an entry whose definition is another type, with a coded error", async () => {
    const [start] = NODE_TYPES;
    const wrong = { type: "not-start", load: start!.load };
    const err = await loadNodeTypes(["not-start"], [wrong]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NodeRegistryError);
    expect(err).toMatchObject({ code: "node.registry_mismatch" });
  });

  it("analysing a workflow against its own types is the same as against every type", async () => {
    const examples = resolve(import.meta.dirname, "../../examples");
    const files = readdirSync(examples).filter((f) => /\.(ya?ml|json)$/.test(f));
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) {
      const { workflow } = await loadWorkflowFile(join(examples, f));
      expect(analyse(workflow, await nodeTypesFor(workflow)), f).toEqual(analyse(workflow, nodeCatalogue));
    }
  });
});
