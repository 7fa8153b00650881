/** add_branch: a new case on an if-else, whose new node joins the flow at `join`. */
import { z } from "zod";
import { ConditionSchema, storedConditions } from "./conditions.js";
import { nodeOf, pushEdge } from "./graph.js";
import { casesOf, ifElseOf } from "./if-else.js";
import { editKind } from "./kind.js";
import { addNewNode, NewNodeSchema } from "./new-node.js";

function freeCaseId(cases: any[]): string {
  const used = new Set(cases.map((k) => String(k.case_id)));
  let k = cases.length + 1;
  while (used.has(`c${k}`)) k++;
  return `c${k}`;
}

export const addBranch = editKind({
  schema: z.object({
    kind: z.literal("add_branch"),
    ifElse: z.string(),
    conditions: z.array(ConditionSchema).min(1),
    logical_operator: z.enum(["and", "or"]).default("and"),
    node: NewNodeSchema,
    join: z.string(),
  }),
  apply(g, e, env) {
    const ie = ifElseOf(g, e.ifElse);
    const join = nodeOf(g, e.join, "join");
    const cases = casesOf(ie);
    const caseId = freeCaseId(cases);
    cases.push({ case_id: caseId, logical_operator: e.logical_operator, conditions: storedConditions(e.conditions) });
    ie.config.cases = cases;
    const node = addNewNode(g, e.node, ie.parentId);
    const pred = g.edges.find((x) => x.target === ie.id)?.source;
    env.wiring.complete(
      g,
      node,
      g.nodes.find((n) => n.id === pred),
    );
    pushEdge(g, ie.id, caseId, node.id);
    pushEdge(g, node.id, "source", join.id);
    env.wiring.publish(g, join, node);
  },
  describe: (e) => `branch +${e.node.id} on ${e.ifElse}`,
});
