// Small graphs for the edit algebra's tests, and helpers to apply one edit and read the result.
import { expect } from "vitest";
import {
  applyEdit,
  applyToGraph,
  type Edit,
  type EditEnv,
  EditError,
  type EditGraph,
  EditSchema,
  READER_WIRING,
  workflowWiring,
} from "../../src/edits/index.js";
import type { Workflow } from "../../src/ir/workflow.js";
import { mineWorkflow } from "../../src/mine/index.js";
import { nodeCatalogue } from "../../src/nodes/index.js";

const tpl = (id: string, reads: string[]) => ({
  id,
  type: "template-transform",
  title: id.toUpperCase(),
  config: { variables: reads.map((r) => ({ variable: r, value_selector: [r, "output"] })), template: "x" },
});

/** start → a → {b, c} → d → end: a diamond whose join d reads both sides. */
export function diamond(): EditGraph {
  return {
    nodes: [
      { id: "start", type: "start", title: "Start", config: { variables: [] } },
      tpl("a", []),
      tpl("b", ["a"]),
      tpl("c", ["a"]),
      tpl("d", ["b", "c"]),
      {
        id: "end",
        type: "end",
        title: "End",
        config: { outputs: [{ variable: "r", value_selector: ["d", "output"] }] },
      },
    ],
    edges: [
      ["start", "a"],
      ["a", "b"],
      ["a", "c"],
      ["b", "d"],
      ["c", "d"],
      ["d", "end"],
    ].map(([source, target]) => ({
      id: `${source}-source-${target}`,
      source: source!,
      sourcePort: "source",
      target: target!,
    })),
  };
}

export const WORKFLOW_ENV: EditEnv = { wiring: workflowWiring(nodeCatalogue), nodeTypes: nodeCatalogue };
export const READER_ENV: EditEnv = { wiring: READER_WIRING, nodeTypes: nodeCatalogue };

/** One edit of a Weft workflow, checked against the built-in node types. */
export const applyWorkflowEdit = (wf: Workflow, edit: Edit) => applyEdit(wf, edit, { nodeTypes: nodeCatalogue });

/** The graph after `edit` (parsed like any edit); the input is left as it was. */
export function applied(g: EditGraph, edit: Edit, env: EditEnv = WORKFLOW_ENV): EditGraph {
  const before = structuredClone(g);
  const draft = structuredClone(g);
  applyToGraph(draft, EditSchema.parse(edit), env);
  expect(g).toEqual(before);
  return draft;
}

/** The EditError `edit` raises on `g`. */
export function failure(g: EditGraph, edit: Edit, env: EditEnv = WORKFLOW_ENV): EditError {
  try {
    applyToGraph(structuredClone(g), EditSchema.parse(edit), env);
  } catch (err) {
    if (err instanceof EditError) return err;
    throw err;
  }
  throw new Error(`edit applied: ${JSON.stringify(edit)}`);
}

export const edgeList = (g: EditGraph) =>
  g.edges.map((e) => `${e.source}${e.sourcePort !== "source" ? `:${e.sourcePort}` : ""}>${e.target}`).sort();
export const nodeIds = (g: EditGraph) => g.nodes.map((n) => n.id);
export const nodeIn = (g: EditGraph, id: string) => g.nodes.find((n) => n.id === id)!;

const recs = (...ts: string[]) =>
  ts.map((t, i) => ({
    id: `r${i}`,
    query: "q",
    reference: "",
    calls: t.split("").map((tool) => ({ tool, arguments: {} })),
  }));
/** A mined tool-calling workflow: "ab" gives start plan call1(a) call2(b) synth end. */
export const mined = (...ts: string[]): Workflow =>
  mineWorkflow(recs(...ts), { model: { provider: "openai", name: "m" }, providerId: "dir" }).workflow;
