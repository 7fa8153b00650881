/** remove_node: the node goes, and every edge it is on. Nothing is reconnected (that is bypass_node). */
import { z } from "zod";
import { nodeOf } from "./graph.js";
import { editKind } from "./kind.js";

export const removeNode = editKind({
  schema: z.object({ kind: z.literal("remove_node"), id: z.string() }),
  apply(g, e) {
    nodeOf(g, e.id);
    g.nodes = g.nodes.filter((x) => x.id !== e.id);
    g.edges = g.edges.filter((x) => x.source !== e.id && x.target !== e.id);
  },
  describe: (e) => `remove ${e.id}`,
});
