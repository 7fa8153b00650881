import type { Workflow, WorkflowEdge, WorkflowNode } from "../../ir/workflow.js";
import { CONTAINER_PORTS, pushEdge } from "./canvas.js";
import type { ExportContext } from "./context.js";
import type { Containers, ConvertedNodes } from "./convert.js";
import { unsupported } from "./errors.js";
import type { ConvertedNode } from "./nodes.js";
import type { ExportProblems } from "./problems.js";
import type { CozeEdge } from "./schema.js";

/**
 * Every Weft edge between exported nodes as a Coze edge, in `topEdges` or its container's edges; edges into an
 * end go where `redirect` says. An edge Coze cannot draw is a problem of its source node.
 */
export function convertEdges(
  workflow: Workflow,
  ctx: ExportContext,
  nodes: ConvertedNodes,
  redirect: Map<string, string>,
  topEdges: CozeEdge[],
  problems: ExportProblems,
): void {
  const { converted, containers } = nodes;
  for (const e of workflow.edges) {
    const src = ctx.byId.get(e.source);
    const dst = ctx.byId.get(e.target);
    if (!src || !dst) continue;
    const r = problems.attempt(src, () => mapEdge(e, src, dst, ctx, converted, containers, redirect));
    if (!r) continue;
    const list = r.container ? containers.get(r.container)?.node.edges : topEdges;
    if (!list) continue;
    pushEdge(list, r.edge);
    for (const port of converted.get(src.id)?.alsoPorts?.[e.sourcePort] ?? [])
      pushEdge(list, { ...r.edge, sourcePortID: port });
  }
}

function mapEdge(
  e: WorkflowEdge,
  src: WorkflowNode,
  dst: WorkflowNode,
  ctx: ExportContext,
  converted: Map<string, ConvertedNode>,
  containers: Containers,
  redirect: Map<string, string>,
): { edge: CozeEdge; container?: string } | undefined {
  // iteration-start -> first body node: the container's inline output.
  if (src.type === "iteration-start") {
    const c = src.parentId ? containers.get(src.parentId) : undefined;
    if (!c) return undefined;
    return {
      edge: {
        sourceNodeID: c.node.id,
        targetNodeID: ctx.cozeId(dst.id),
        sourcePortID: CONTAINER_PORTS[c.kind].inlineOut,
      },
      container: src.parentId,
    };
  }
  const conv = converted.get(src.id);
  if (!conv) return undefined;
  const sourcePort = conv.ports[e.sourcePort] ?? (e.sourcePort === "source" ? "" : undefined);
  if (sourcePort === undefined)
    unsupported(`edge ${e.source} -> ${e.target} leaves from port "${e.sourcePort}", which Coze does not have`);
  const target = dst.type === "end" ? redirect.get(dst.id) : ctx.cozeIds.get(dst.id);
  if (!target) return undefined;
  if ((src.parentId ?? "") !== (dst.parentId ?? ""))
    unsupported(`edge ${e.source} -> ${e.target} crosses a container boundary`);
  const edge: CozeEdge = {
    sourceNodeID: ctx.cozeId(src.id),
    targetNodeID: target,
    ...(sourcePort ? { sourcePortID: sourcePort } : {}),
  };
  return { edge, ...(src.parentId ? { container: src.parentId } : {}) };
}
