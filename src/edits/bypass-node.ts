/**
 * bypass_node: the node (and what its container holds) goes, its predecessors are connected to its
 * successors, and references to it are dropped; the flow runs on around the gap.
 */
import { z } from "zod";
import { editFail } from "./error.js";
import { isProtected, nodeOf, pushEdge } from "./graph.js";
import { editKind } from "./kind.js";

export const bypassNode = editKind({
  schema: z.object({ kind: z.literal("bypass_node"), id: z.string() }),
  apply(g, e, env) {
    const n = nodeOf(g, e.id);
    if (isProtected(n)) editFail("edit.protected_node", `the ${n.type} node cannot be removed`, n.id, "id");
    const removed = new Set([n.id, ...g.nodes.filter((x) => x.parentId === n.id).map((x) => x.id)]);
    const ins = g.edges.filter((x) => x.target === n.id);
    const outs = g.edges.filter((x) => x.source === n.id);
    if (new Set(outs.map((x) => x.sourcePort)).size > 1)
      editFail("edit.bad_position", `"${n.id}" branches; remove its branches first`, n.id, "id");
    g.edges = g.edges.filter((x) => !removed.has(x.source) && !removed.has(x.target));
    for (const i of ins) for (const o of outs) pushEdge(g, i.source, i.sourcePort, o.target);
    g.nodes = g.nodes.filter((x) => !removed.has(x.id));
    env.wiring.dropReferences(g, removed);
  },
  describe: (e) => `bypass ${e.id}`,
});
