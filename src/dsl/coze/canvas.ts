import type { WorkflowNode } from "../../ir/workflow.js";
import type { ConvertedNode } from "./nodes.js";
import type { CozeEdge, CozeNode } from "./schema.js";

/** A container's inline ports: its body starts at `inlineOut` and ends back at `inlineIn`. */
export const CONTAINER_PORTS = {
  loop: { inlineOut: "loop-function-inline-output", inlineIn: "loop-function-inline-input" },
  batch: { inlineOut: "batch-function-inline-output", inlineIn: "batch-function-inline-input" },
};

const COZE_NAMES: Record<string, string> = {
  "1": "Start",
  "2": "End",
  "3": "LLM",
  "5": "Code",
  "6": "Knowledge",
  "8": "Condition",
  "13": "Message",
  "15": "Text",
  "21": "Loop",
  "22": "Intent",
  "28": "Batch",
  "32": "Variable merge",
  "45": "HTTP",
};

export function positionOf(
  node: WorkflowNode | undefined,
  fallback: { x: number; y: number },
): { x: number; y: number } {
  const p = node?.canvas?.position as { x?: unknown; y?: unknown } | undefined;
  if (p && typeof p.x === "number" && typeof p.y === "number") return { x: p.x, y: p.y };
  return fallback;
}

export function makeNode(
  id: string,
  conv: ConvertedNode,
  title: string,
  description: string,
  position: { x: number; y: number },
): CozeNode {
  const data: CozeNode["data"] = {
    nodeMeta: {
      title: title || COZE_NAMES[conv.type] || conv.type,
      description,
      subTitle: COZE_NAMES[conv.type] ?? "",
    },
  };
  // Coze's own Entry nodes carry no inputs at all.
  if (conv.type !== "1" || Object.keys(conv.inputs).length > 0) data.inputs = conv.inputs;
  if (conv.outputs) data.outputs = conv.outputs;
  if (conv.type === "1") data.trigger_parameters = [];
  if (conv.version) data.version = conv.version;
  return { id, type: conv.type, meta: { position }, data };
}

function edgeKey(e: CozeEdge): string {
  return [e.sourceNodeID, e.targetNodeID, e.sourcePortID ?? "", e.targetPortID ?? ""].join("|");
}

/** Adds the edge unless the list has it already. */
export function pushEdge(list: CozeEdge[], e: CozeEdge): void {
  if (!list.some((x) => edgeKey(x) === edgeKey(e))) list.push(e);
}
