/** remove_edge: one edge goes; its nodes stay. */
import { z } from "zod";
import { edgeFields } from "./edge-ref.js";
import { findEdge } from "./graph.js";
import { editKind } from "./kind.js";

export const removeEdge = editKind({
  schema: z.object({ kind: z.literal("remove_edge"), ...edgeFields }),
  apply(g, e) {
    g.edges.splice(findEdge(g, e), 1);
  },
  describe: (e) => `edge −${e.source}→${e.target}`,
});
