/** The node an edit brings in (add_node, add_branch, add_parallel_branch). */
import { z } from "zod";
import { editFail } from "./error.js";
import type { EditGraph, EditNode } from "./graph.js";

export const NewNodeSchema = z.object({
  id: z.string().min(1),
  type: z.string().min(1),
  title: z.string().optional(),
  config: z.record(z.string(), z.unknown()).default({}),
});
export type NewNode = z.infer<typeof NewNodeSchema>;

/** Adds the node (in `parentId`'s container); its config is copied, so the edit stays as it was written. */
export function addNewNode(g: EditGraph, nn: NewNode, parentId?: string, field = "node.id"): EditNode {
  if (g.nodes.some((n) => n.id === nn.id))
    editFail("edit.duplicate_id", `a node "${nn.id}" exists already`, nn.id, field);
  const node: EditNode = {
    id: nn.id,
    type: nn.type,
    ...(nn.title !== undefined ? { title: nn.title } : {}),
    config: structuredClone(nn.config),
    ...(parentId ? { parentId } : {}),
  };
  g.nodes.push(node);
  return node;
}
