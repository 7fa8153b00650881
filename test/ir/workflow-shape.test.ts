import { describe, expect, it } from "vitest";
import { importDify } from "../../src/dsl/dify/index.js";
import { WorkflowShapeSchema } from "../../src/ir/workflow.js";
import { isWorkflowShape } from "../../src/ir/workflow-shape.js";
import { corpusFiles, readCorpus } from "../dsl/corpus.js";

// The importer trusts isWorkflowShape's yes instead of parsing with WorkflowShapeSchema: it must never say yes to
// what the schema refuses, and it should say no only where the schema does (else the parse runs for nothing).
const base = {
  weft: 1,
  name: "w",
  description: "",
  mode: "workflow",
  nodes: [
    { id: "a", type: "start", title: "", config: { x: 1 }, canvas: { position: { x: 0, y: 0 } } },
    { id: "b", type: "llm", title: "B", parentId: "a", config: {} },
  ],
  edges: [
    { id: "e", source: "a", sourcePort: "source", target: "b", canvas: { type: "custom" } },
    { source: "a", target: "b" },
  ],
  environment_variables: [
    { id: "v", name: "k", value_type: "string", value: "x", description: "", selector: ["env", "k"] },
  ],
  conversation_variables: [{ name: "c", value_type: "number", extra: true }],
  features: {},
  meta: { dify: {} },
};

const REPLACEMENTS: unknown[] = [undefined, null, "", "x", "workflow", "advanced-chat", 0, 1, 2, true, [], {}];
const REPLACEMENTS_PLUS: unknown[] = [...REPLACEMENTS, ["s"], [1], [undefined], [{}], [null]];
const DELETE = Symbol("delete");

/** Every place in the value (the root excluded), as paths of keys and indexes. */
function paths(v: unknown, at: (string | number)[] = []): (string | number)[][] {
  if (typeof v !== "object" || v === null) return [];
  const keys: (string | number)[] = Array.isArray(v) ? v.map((_, i) => i) : Object.keys(v);
  return keys.flatMap((k) => [[...at, k], ...paths((v as Record<string | number, unknown>)[k], [...at, k])]);
}

function replaced(path: (string | number)[], value: unknown): unknown {
  const copy = structuredClone(base) as Record<string | number, unknown>;
  let parent = copy;
  for (const k of path.slice(0, -1)) parent = parent[k] as Record<string | number, unknown>;
  const last = path[path.length - 1] as string | number;
  if (value === DELETE) delete parent[last];
  else parent[last] = value;
  return copy;
}

describe("isWorkflowShape agrees with WorkflowShapeSchema", () => {
  it("accepts the whole workflow", () => {
    expect(isWorkflowShape(base)).toBe(true);
    expect(WorkflowShapeSchema.safeParse(base).success).toBe(true);
  });

  it("answers as the schema does with any one place replaced or removed", () => {
    const differ: string[] = [];
    let refused = 0;
    for (const path of paths(base)) {
      for (const value of [DELETE, ...REPLACEMENTS_PLUS]) {
        const wf = replaced(path, value);
        const schema = WorkflowShapeSchema.safeParse(wf).success;
        if (!schema) refused++;
        if (isWorkflowShape(wf) !== schema) differ.push(`${path.join(".")} = ${String(value)}`);
      }
    }
    expect(differ).toEqual([]);
    expect(refused).toBeGreaterThan(100);
  });

  it("refuses what the schema refuses at the top and in lists", () => {
    const cases: unknown[] = [
      null,
      [],
      "w",
      { ...base, nodes: [...base.nodes, undefined] },
      // A hole in a list: the schema reads it as undefined.
      { ...base, nodes: Object.assign(new Array(2), { 0: base.nodes[0] }) },
      { ...base, edges: {} },
      { ...base, weft: 2 },
    ];
    for (const wf of cases) {
      expect(WorkflowShapeSchema.safeParse(wf).success).toBe(false);
      expect(isWorkflowShape(wf)).toBe(false);
    }
  });

  it("says yes to every corpus workflow the importer builds (the schema is not asked)", () => {
    const refused = corpusFiles().filter((f) => !isWorkflowShape(importDify(readCorpus(f)).workflow));
    expect(refused).toEqual([]);
  });
});
