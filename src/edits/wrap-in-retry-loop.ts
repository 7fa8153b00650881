/**
 * wrap_in_retry_loop: a chain of top-level nodes moves into a loop that repeats until the last one gave a
 * non-error result; readers outside the loop read the loop's kept result.
 */
import { z } from "zod";
import { editFail } from "./error.js";
import { type EditGraph, type EditNode, isProtected, nodeOf, pushEdge } from "./graph.js";
import { editKind } from "./kind.js";
import { mainOutput, rewriteRefs } from "./workflow-wiring.js";

function checkChain(g: EditGraph, chain: EditNode[]): void {
  for (const n of chain) {
    if (n.parentId)
      editFail(
        "edit.bad_position",
        `"${n.id}" is inside a container; only top-level nodes can be wrapped`,
        n.id,
        "nodes",
      );
    if (isProtected(n)) editFail("edit.protected_node", `the ${n.type} node cannot be wrapped`, n.id, "nodes");
    if (n.type === "loop" || n.type === "iteration")
      editFail("edit.bad_position", `"${n.id}" is a container; loops do not nest here`, n.id, "nodes");
  }
  for (let i = 0; i + 1 < chain.length; i++) {
    const [a, b] = [chain[i]!, chain[i + 1]!];
    const outs = g.edges.filter((x) => x.source === a.id);
    if (outs.length !== 1 || outs[0]!.target !== b.id)
      editFail("edit.not_a_chain", `"${a.id}" must lead only to "${b.id}"`, a.id, "nodes");
    if (g.edges.some((x) => x.target === b.id && x.source !== a.id))
      editFail("edit.not_a_chain", `"${b.id}" has inputs from outside the chain`, b.id, "nodes");
  }
}

function loopNodes(loopId: string, rounds: number, last: string, out: string): EditNode[] {
  const startId = `${loopId}_start`.slice(0, 50);
  const saveId = `${loopId}_save`.slice(0, 50);
  const kept = [loopId, "last"];
  const save = { variable_selector: kept, input_type: "variable", operation: "over-write", value: [last, out] };
  return [
    { id: startId, type: "loop-start", title: "Loop start", parentId: loopId, config: {} },
    {
      id: saveId,
      type: "assigner",
      title: "Keep the result",
      parentId: loopId,
      config: { version: "2", items: [save] },
    },
    {
      id: loopId,
      type: "loop",
      title: "Retry until a result",
      config: {
        start_node_id: startId,
        loop_count: rounds,
        logical_operator: "and",
        break_conditions: [
          { variable_selector: kept, comparison_operator: "not empty" },
          { variable_selector: kept, comparison_operator: "not contains", value: "ERROR:" },
        ],
        loop_variables: [{ label: "last", var_type: "string", value_type: "constant", value: "" }],
      },
    },
  ];
}

export const wrapInRetryLoop = editKind({
  schema: z.object({
    kind: z.literal("wrap_in_retry_loop"),
    nodes: z.array(z.string()).min(1),
    rounds: z.number().int().min(1).max(20).default(3),
    id: z.string().optional(),
  }),
  apply(g, e, env) {
    const chain = e.nodes.map((id, i) => nodeOf(g, id, `nodes[${i}]`));
    checkChain(g, chain);
    const first = chain[0]!;
    const last = chain[chain.length - 1]!;
    const loopId = e.id ?? `retry_${first.id}`.slice(0, 50);
    if (g.nodes.some((n) => n.id === loopId))
      editFail("edit.duplicate_id", `a node "${loopId}" exists already`, loopId, "id");
    const out = mainOutput(last, env.nodeTypes);
    if (!out) editFail("edit.no_output", `"${last.id}" has no output to retry on`, last.id, "nodes");
    const inside = new Set(chain.map((n) => n.id));
    rewriteRefs(g, (sel) => (sel[0] === last.id && sel[1] === out ? [loopId, "last", ...sel.slice(2)] : sel), inside);
    for (const x of g.edges) {
      if (x.target === first.id) x.target = loopId;
      if (x.source === last.id) {
        x.source = loopId;
        x.sourcePort = "source";
      }
    }
    for (const n of chain) n.parentId = loopId;
    const [start, save, loop] = loopNodes(loopId, e.rounds, last.id, out);
    g.nodes.push(start!, save!, loop!);
    pushEdge(g, start!.id, "source", first.id);
    pushEdge(g, last.id, "source", save!.id);
  },
  describe: (e) => `retry loop around ${e.nodes.join(",")}`,
});
