/** reconnect_edge: an edge keeps its place in the list but gets a new source, port or target. */
import { z } from "zod";
import { edgeFields } from "./edge-ref.js";
import { type EditEdge, findEdge, nodeOf } from "./graph.js";
import { editKind } from "./kind.js";

export const reconnectEdge = editKind({
  schema: z.object({
    kind: z.literal("reconnect_edge"),
    ...edgeFields,
    to: z.object({
      source: z.string().optional(),
      sourcePort: z.union([z.string(), z.number().int().min(0)]).optional(),
      target: z.string().optional(),
    }),
  }),
  apply(g, e) {
    const i = findEdge(g, e);
    const old = g.edges[i]!;
    const next: EditEdge = {
      ...old,
      source: e.to.source ?? old.source,
      sourcePort: e.to.sourcePort ?? old.sourcePort,
      target: e.to.target ?? old.target,
    };
    nodeOf(g, next.source, "to.source");
    nodeOf(g, next.target, "to.target");
    next.id = `${next.source}-${next.sourcePort}-${next.target}`;
    g.edges[i] = next;
  },
  describe: (e) => `edge ${e.source}→${e.target} ⇒ ${e.to.source ?? e.source}→${e.to.target ?? e.target}`,
});
