import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { analyse } from "../../src/analysis/index.js";
import type { Workflow } from "../../src/ir/workflow.js";
import { nodeCatalogue } from "../../src/nodes/index.js";
import { genWorkflow } from "./gen.js";
import { show } from "./helpers.js";

const MUTATIONS = [
  "dropNode",
  "dropEdge",
  "rewireTarget",
  "rewireSource",
  "changePort",
  "changeType",
  "corruptConfig",
  "corruptSelector",
  "changeParent",
  "duplicateId",
  "changeMode",
] as const;

const mutation = fc.record({
  kind: fc.constantFrom(...MUTATIONS),
  a: fc.nat(),
  b: fc.nat(),
  junk: fc.anything({ maxDepth: 2 }),
});

type Mutation = { kind: (typeof MUTATIONS)[number]; a: number; b: number; junk: unknown };

/** Apply one mutation; node objects are replaced, never edited (describeNode memoises per object). */
function mutate(w: Workflow, m: Mutation) {
  const nodes = w.nodes;
  const edges = w.edges;
  const ni = nodes.length ? m.a % nodes.length : 0;
  const ei = edges.length ? m.a % edges.length : 0;
  const other = nodes.length ? nodes[m.b % nodes.length]!.id : "ghost";
  const setNode = (patch: (n: Workflow["nodes"][number]) => Workflow["nodes"][number]) => {
    if (nodes.length) nodes[ni] = patch(structuredClone(nodes[ni]!));
  };
  switch (m.kind) {
    case "dropNode":
      nodes.splice(ni, 1);
      break;
    case "dropEdge":
      edges.splice(ei, 1);
      break;
    case "rewireTarget":
      if (edges.length) edges[ei] = { ...edges[ei]!, target: m.b % 5 === 0 ? "ghost" : other };
      break;
    case "rewireSource":
      if (edges.length) edges[ei] = { ...edges[ei]!, source: other };
      break;
    case "changePort":
      if (edges.length)
        edges[ei] = { ...edges[ei]!, sourcePort: typeof m.junk === "string" && m.junk ? m.junk : "false" };
      break;
    case "changeType": {
      const types = [...nodeCatalogue.all().map((t) => t.type), "bogus"];
      setNode((n) => ({ ...n, type: types[m.b % types.length]! }));
      break;
    }
    case "corruptConfig":
      setNode((n) => {
        const keys = Object.keys(n.config);
        const key = keys.length && m.b % 4 !== 0 ? keys[m.b % keys.length]! : "variables";
        return { ...n, config: { ...n.config, [key]: m.junk } };
      });
      break;
    case "corruptSelector":
      setNode((n) => {
        const text = JSON.stringify(n.config).replace(/"(start|llm\d+|merge\d+|it\d+)"/, `"${other}x"`);
        return { ...n, config: JSON.parse(text) };
      });
      break;
    case "changeParent":
      setNode((n) => ({ ...n, parentId: m.b % 3 === 0 ? undefined : other }));
      break;
    case "duplicateId":
      setNode((n) => ({ ...n, id: other }));
      break;
    case "changeMode":
      w.mode = w.mode === "workflow" ? "advanced-chat" : "workflow";
      break;
  }
}

describe("property: the analyser is total", () => {
  it("generated valid workflows have no errors", { timeout: 120_000 }, () => {
    fc.assert(
      fc.property(fc.integer({ min: 3, max: 80 }), fc.integer(), (size, seed) => {
        const r = analyse(genWorkflow(size, seed), nodeCatalogue);
        expect(
          r.diagnostics.filter((d) => d.severity === "error"),
          show(r),
        ).toEqual([]);
      }),
      { numRuns: 60 },
    );
  });

  it("random mutations never throw, only produce well-formed diagnostics", { timeout: 120_000 }, () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 3, max: 40 }),
        fc.integer(),
        fc.array(mutation, { minLength: 1, maxLength: 6 }),
        (size, seed, ms) => {
          const w = genWorkflow(size, seed);
          for (const m of ms) mutate(w, m);
          const r = analyse(w, nodeCatalogue);
          const ids = new Set(w.nodes.map((x) => x.id));
          for (const d of r.diagnostics) {
            expect(typeof d.code).toBe("string");
            expect(["error", "warning", "info"]).toContain(d.severity);
            expect(typeof d.message).toBe("string");
            // A diagnostic points at a node the UI can highlight, or at none.
            if (d.nodeId !== undefined) expect(ids.has(d.nodeId)).toBe(true);
          }
          // Deterministic: the same workflow gives the same diagnostics.
          expect(analyse(w, nodeCatalogue).diagnostics).toEqual(r.diagnostics);
          expect(r.burden.nodes.length).toBeLessThanOrEqual(w.nodes.length);
          for (const nb of r.burden.nodes) expect(Number.isFinite(nb.score)).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("structurally broken inputs (non-arrays, missing fields) never throw", () => {
    const bad = [
      { mode: "workflow", nodes: null, edges: null },
      { mode: "workflow", nodes: [{ id: "a" }], edges: [{}] },
      {
        mode: "advanced-chat",
        nodes: [{ id: "s", type: "start", config: null }],
        edges: [{ source: "s", target: "s" }],
      },
      { mode: "workflow", nodes: [{ id: "s", type: "start", config: { variables: "x" }, parentId: "s" }], edges: [] },
    ];
    for (const w of bad) expect(() => analyse(w as unknown as Workflow, nodeCatalogue)).not.toThrow();
  });
});
