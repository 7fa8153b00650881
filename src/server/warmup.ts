/**
 * Start-up warm-up of the draft-save path. A fresh process compiles the schema check and the analyser on first
 * use (V8 compiles lazily, then optimises what runs often), so without this the first saves after a start cost
 * several times a warm save. The server runs it once at start, off the request path, on a workflow made of
 * every registered node type's example, so each type's schema and rules have run before a user's first save.
 */
import { analyse } from "../analysis/index.js";
import { parseWeftObject } from "../dsl/load.js";
import { listNodeTypes } from "../ir/registry.js";
import "../nodes/index.js";

/** Enough passes for V8 to optimise the hot analyser functions; measured in bench/autosave.ts. */
const PASSES = 12;
/** Copies of each example in the warm-up workflow: the graph passes run on something of an app's size. */
const COPIES = 3;

/** A workflow with a start node and every top-level node type's example, chained; findings do not matter. */
export function warmupWorkflow(): Record<string, unknown> {
  const nodes: Array<Record<string, unknown>> = [
    {
      id: "start",
      type: "start",
      title: "Start",
      config: { variables: [{ variable: "query", label: "Query", type: "paragraph", required: true }] },
    },
  ];
  const edges: Array<Record<string, unknown>> = [];
  let tail = "start";
  for (let copy = 0; copy < COPIES; copy++) {
    for (const def of listNodeTypes()) {
      if (def.type === "start" || def.example === undefined || /-start$/.test(def.type)) continue;
      const id = copy === 0 ? def.type : `${def.type}_${copy}`;
      nodes.push({ id, type: def.type, title: id, config: structuredClone(def.example) });
      edges.push({ source: tail, target: id });
      tail = id;
      // A container gets its body's start node, so the scope passes run too.
      if (def.container)
        nodes.push({ id: `${id}_start`, type: def.container.startType, title: "body", parentId: id, config: {} });
    }
  }
  return { weft: 1, name: "warm-up", mode: "workflow", nodes, edges };
}

/**
 * Run the draft-save path's pure work (schema check, analysis, serialisation) on the warm-up workflow. Never
 * throws: a warm-up that fails only leaves the first saves slower, and says why on stderr.
 */
export function warmDraftPath(passes = PASSES): void {
  try {
    const raw = warmupWorkflow();
    for (let i = 0; i < passes; i++) {
      const { workflow } = parseWeftObject(JSON.parse(JSON.stringify(raw)));
      JSON.stringify(analyse(workflow).diagnostics);
    }
  } catch (e) {
    process.stderr.write(`weft server: warm-up skipped (${e instanceof Error ? e.message : String(e)})\n`);
  }
}
