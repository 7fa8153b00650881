/** add_node: a new node; `after` inserts it between a node and its successors, `before` between a node and its predecessors. */
import { z } from "zod";
import { editFail } from "./error.js";
import { type EditEnv, type EditGraph, type EditNode, nodeOf, pushEdge } from "./graph.js";
import { editKind } from "./kind.js";
import { addNewNode, NewNodeSchema } from "./new-node.js";

const schema = z.object({
  kind: z.literal("add_node"),
  node: NewNodeSchema,
  after: z.string().optional(),
  before: z.string().optional(),
});

function insertAfter(g: EditGraph, node: EditNode, anchor: EditNode, env: EditEnv): void {
  const outs = g.edges.filter((x) => x.source === anchor.id);
  if (outs.length === 0)
    editFail("edit.bad_position", `"${anchor.id}" has no successors to insert before`, anchor.id, "after");
  const ports = new Set(outs.map((x) => x.sourcePort));
  if (ports.size > 1)
    editFail(
      "edit.bad_position",
      `"${anchor.id}" branches; use add_branch or insert before a branch's node`,
      anchor.id,
      "after",
    );
  env.wiring.complete(g, node, anchor);
  for (const x of outs) {
    x.source = node.id;
    x.sourcePort = "source";
  }
  pushEdge(g, anchor.id, [...ports][0]!, node.id);
  for (const x of outs) env.wiring.publish(g, nodeOf(g, x.target), node);
}

function insertBefore(g: EditGraph, node: EditNode, anchor: EditNode, env: EditEnv): void {
  const ins = g.edges.filter((x) => x.target === anchor.id);
  if (ins.length === 0)
    editFail("edit.bad_position", `"${anchor.id}" has no predecessors to insert after`, anchor.id, "before");
  env.wiring.complete(g, node, ins.length === 1 ? nodeOf(g, ins[0]!.source) : undefined);
  for (const x of ins) x.target = node.id;
  pushEdge(g, node.id, "source", anchor.id);
  env.wiring.publish(g, anchor, node);
}

export const addNode = editKind({
  schema,
  apply(g, e, env) {
    if (e.after && e.before) editFail("edit.bad_position", "give `after` or `before`, not both", e.node.id, "after");
    const anchor = e.after ? nodeOf(g, e.after, "after") : e.before ? nodeOf(g, e.before, "before") : undefined;
    const node = addNewNode(g, e.node, anchor?.parentId);
    if (e.after && anchor) insertAfter(g, node, anchor, env);
    else if (e.before && anchor) insertBefore(g, node, anchor, env);
    else env.wiring.complete(g, node);
  },
  describe: (e) =>
    `add ${e.node.type} ${e.node.id}${e.after ? ` after ${e.after}` : e.before ? ` before ${e.before}` : ""}`,
});
