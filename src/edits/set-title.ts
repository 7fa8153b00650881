/** set_title: a node's title. */
import { z } from "zod";
import { nodeOf } from "./graph.js";
import { editKind } from "./kind.js";

export const setTitle = editKind({
  schema: z.object({ kind: z.literal("set_title"), id: z.string(), title: z.string().min(1) }),
  apply(g, e) {
    nodeOf(g, e.id).title = e.title;
  },
  describe: (e) => `title of ${e.id}`,
});
