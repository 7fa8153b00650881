/** add_edge: a new edge between two nodes (in a batch, the ends may be added by later edits). */
import { z } from "zod";
import { edgeFields } from "./edge-ref.js";
import { editFail } from "./error.js";
import { describeEdgeRef, hasEdge, nodeOf, pushEdge } from "./graph.js";
import { editKind } from "./kind.js";

export const addEdge = editKind({
  schema: z.object({ kind: z.literal("add_edge"), ...edgeFields }),
  apply(g, e, env) {
    if (!env.batch) {
      nodeOf(g, e.source, "source");
      nodeOf(g, e.target, "target");
    }
    if (hasEdge(g, e)) editFail("edit.duplicate_edge", `edge ${describeEdgeRef(e)} exists already`, e.source, "edge");
    pushEdge(g, e.source, e.sourcePort, e.target);
  },
  describe: (e) => `edge +${e.source}→${e.target}`,
});
