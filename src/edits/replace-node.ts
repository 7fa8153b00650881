/**
 * replace_node: a node's type, title or config (its id and edges stay); `merge` keeps config fields not
 * given. When the type changes, readers of the old main output read the new type's main output.
 */
import { z } from "zod";
import { editFail } from "./error.js";
import { isProtected, nodeOf } from "./graph.js";
import { editKind } from "./kind.js";
import { mainOutput, rewriteRefs } from "./workflow-wiring.js";

export const replaceNode = editKind({
  schema: z.object({
    kind: z.literal("replace_node"),
    id: z.string(),
    type: z.string().optional(),
    title: z.string().optional(),
    config: z.record(z.string(), z.unknown()).default({}),
    merge: z.boolean().default(true),
  }),
  apply(g, e, env) {
    const n = nodeOf(g, e.id);
    const typeChanged = (e.type ?? n.type) !== n.type;
    if (typeChanged && isProtected(n))
      editFail("edit.protected_node", `the ${n.type} node keeps its type`, n.id, "type");
    const oldMain = mainOutput(n, env.nodeTypes);
    n.type = e.type ?? n.type;
    if (e.title !== undefined) n.title = e.title;
    n.config = e.merge && !typeChanged ? { ...n.config, ...structuredClone(e.config) } : structuredClone(e.config);
    env.wiring.complete(g, n);
    const newMain = mainOutput(n, env.nodeTypes);
    if (typeChanged && oldMain && newMain && oldMain !== newMain)
      rewriteRefs(
        g,
        (sel) => (sel[0] === n.id && sel[1] === oldMain ? [n.id, newMain, ...sel.slice(2)] : sel),
        new Set([n.id]),
      );
  },
  describe: (e) => `replace ${e.id}${e.type ? ` as ${e.type}` : ""}`,
});
