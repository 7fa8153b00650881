import type { Workflow, WorkflowNode } from "../../ir/workflow.js";
import { makeNode, positionOf } from "./canvas.js";
import type { ExportContext } from "./context.js";
import { mergeEnds } from "./merge-ends.js";
import { endParams, exitReturning } from "./nodes.js";
import type { ExportProblems } from "./problems.js";
import { type CozeEdge, type CozeNode, EXIT_ID } from "./schema.js";

/** What becomes Coze's single Exit 900001. */
export interface ExitPlan {
  kind: "end" | "answer" | "merged" | "synthetic";
  /** The Weft node that is the Exit itself ("end" or "answer"). */
  node?: WorkflowNode;
  ends: WorkflowNode[];
}

/**
 * The one end node; else, in a chatflow, a lone top-level answer that nothing follows; several ends are merged
 * into one Exit; with none of these, an Exit is made up.
 */
export function planExit(workflow: Workflow): ExitPlan {
  const ends = workflow.nodes.filter((n) => n.type === "end");
  if (ends.length === 1) return { kind: "end", node: ends[0], ends };
  if (ends.length > 1) return { kind: "merged", ends };
  const answers = workflow.nodes.filter((n) => n.type === "answer");
  const answer = answers[0];
  if (
    workflow.mode === "advanced-chat" &&
    answers.length === 1 &&
    !workflow.edges.some((e) => e.source === answer!.id) &&
    !answer!.parentId
  ) {
    return { kind: "answer", node: answer, ends };
  }
  return { kind: "synthetic", ends };
}

/**
 * The Exit node, placed right of every other node unless it has a position of its own. `redirect` learns
 * where the edges into each Weft end go; an answer that is the Exit leaves `cozeNodes`.
 */
export function buildExit(
  plan: ExitPlan,
  ctx: ExportContext,
  cozeNodes: Map<string, CozeNode>,
  redirect: Map<string, string>,
  problems: ExportProblems,
  topEdges: CozeEdge[],
): CozeNode | undefined {
  const lastX = Math.max(0, ...[...cozeNodes.values()].map((c) => c.meta.position.x)) + 320;
  const exitNode = plan.node;
  if (plan.kind === "end" && exitNode) {
    const params = problems.attempt(exitNode, () => endParams(exitNode, ctx));
    redirect.set(exitNode.id, EXIT_ID);
    if (!params) return undefined;
    const position = positionOf(exitNode, { x: lastX, y: 0 });
    return makeNode(EXIT_ID, exitReturning(params), exitNode.title, String(exitNode.config.desc ?? ""), position);
  }
  if (plan.kind === "answer" && exitNode) {
    const exit = cozeNodes.get(exitNode.id);
    cozeNodes.delete(exitNode.id);
    return exit;
  }
  if (plan.kind === "merged") return mergeEnds(plan.ends, ctx, cozeNodes, redirect, problems, topEdges, lastX);
  return makeNode(EXIT_ID, exitReturning([]), "End", "", { x: lastX, y: 0 });
}
