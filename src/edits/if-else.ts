import { editFail } from "./error.js";
import { type EditGraph, type EditNode, nodeOf } from "./graph.js";

/** The if-else node `id` names (field `ifElse`). */
export function ifElseOf(g: EditGraph, id: string): EditNode {
  const n = nodeOf(g, id, "ifElse");
  if (n.type !== "if-else")
    editFail("edit.wrong_type", `"${n.id}" is a ${n.type} node, not an if-else`, n.id, "ifElse");
  return n;
}

export function casesOf(n: EditNode): any[] {
  const cases = (n.config as Record<string, unknown>).cases;
  return Array.isArray(cases) ? cases : [];
}
