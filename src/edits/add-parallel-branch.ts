/** add_parallel_branch: a new node running alongside, `from` → node → `join`; `join` reads its output. */
import { z } from "zod";
import { editFail } from "./error.js";
import { nodeOf, pushEdge } from "./graph.js";
import { editKind } from "./kind.js";
import { addNewNode, NewNodeSchema } from "./new-node.js";

export const addParallelBranch = editKind({
  schema: z.object({ kind: z.literal("add_parallel_branch"), from: z.string(), node: NewNodeSchema, join: z.string() }),
  apply(g, e, env) {
    const from = nodeOf(g, e.from, "from");
    const join = nodeOf(g, e.join, "join");
    if (from.parentId !== join.parentId)
      editFail("edit.bad_position", "`from` and `join` must be in the same container", from.id, "join");
    const node = addNewNode(g, e.node, from.parentId);
    env.wiring.complete(g, node, from);
    const ports = new Set(g.edges.filter((x) => x.source === from.id).map((x) => x.sourcePort));
    pushEdge(g, from.id, ports.size === 1 ? [...ports][0]! : "source", node.id);
    pushEdge(g, node.id, "source", join.id);
    env.wiring.publish(g, join, node);
  },
  describe: (e) => `parallel +${e.node.id} from ${e.from}`,
});
