import type { WorkflowNode } from "../../ir/workflow.js";
import { CONTAINER_PORTS, pushEdge } from "./canvas.js";
import type { ExportContext } from "./context.js";
import type { ConvertedNodes } from "./convert.js";
import { type CozeEdge, EXIT_ID } from "./schema.js";

/**
 * Container bodies: children move from the top level into their container's blocks, and every body node that
 * leads nowhere inside the body is wired back to the container's inline input.
 */
export function fillContainers(nodes: WorkflowNode[], converted: ConvertedNodes): void {
  const { containers, cozeNodes } = converted;
  for (const [id, c] of containers) {
    for (const n of nodes) {
      if (n.parentId !== id) continue;
      const cn = cozeNodes.get(n.id);
      if (!cn) continue;
      c.node.blocks!.push(cn);
      cozeNodes.delete(n.id);
    }
    const inner = new Set(c.node.blocks!.map((b) => b.id));
    for (const b of c.node.blocks!) {
      const hasOut = c.node.edges!.some((e) => e.sourceNodeID === b.id && inner.has(e.targetNodeID));
      if (!hasOut)
        pushEdge(c.node.edges!, {
          sourceNodeID: b.id,
          targetNodeID: c.node.id,
          targetPortID: CONTAINER_PORTS[c.kind].inlineIn,
        });
    }
  }
}

/** A made-up Exit collects every top-level path that leads nowhere. */
export function wireDanglingToExit(ctx: ExportContext, converted: ConvertedNodes, topEdges: CozeEdge[]): void {
  for (const cn of converted.cozeNodes.values()) {
    if (cn.id === EXIT_ID) continue;
    const weftId = [...ctx.cozeIds].find(([, v]) => v === cn.id)?.[0];
    const conv = weftId ? converted.converted.get(weftId) : undefined;
    const hasOut = topEdges.some((e) => e.sourceNodeID === cn.id);
    if (!hasOut)
      pushEdge(topEdges, {
        sourceNodeID: cn.id,
        targetNodeID: EXIT_ID,
        ...(conv?.ports.source ? { sourcePortID: conv.ports.source } : {}),
      });
  }
}
