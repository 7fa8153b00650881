import type { AppMode } from "../../ir/workflow.js";
import type { CozeCanvas, CozeNode } from "./schema.js";

/** What Coze Studio's load shortcut checks (`shortcuts/constant.ts` WORKFLOW_EXPORT_TYPE). */
export const COZE_FLOW_FILE_TYPE = "coze-workflow-export-data";

/** Coze's WorkflowMode numbers (@coze-workflow/base). */
const FLOW_MODES: Record<AppMode, number> = { workflow: 0, "advanced-chat": 3 };

/** Coze's default node box; the loader only uses it to place nodes. */
const NODE_WIDTH = 360;
const NODE_HEIGHT = 120;

/** A canvas node plus the loader's placement box (its children carry one too). */
type FlowNode = CozeNode & { _temp: { bounds: { x: number; y: number; width: number; height: number } } };

export interface CozeFlowFile {
  type: typeof COZE_FLOW_FILE_TYPE;
  source: { workflowId: string; flowMode: number; spaceId: string; host: string; isDouyin: boolean };
  json: { nodes: FlowNode[]; edges: CozeCanvas["edges"] };
}

/**
 * The loader places a top-level node at (bounds centre x, bounds top), so bounds are built around
 * `meta.position` to put every node where the canvas says.
 */
function withBounds(node: CozeNode): FlowNode {
  const { x, y } = node.meta.position;
  const out: FlowNode = {
    ...node,
    _temp: { bounds: { x: x - NODE_WIDTH / 2, y, width: NODE_WIDTH, height: NODE_HEIGHT } },
  };
  if (node.blocks) out.blocks = node.blocks.map(withBounds);
  return out;
}

/**
 * Wrap a canvas as the file Coze Studio's playground loads with Cmd/Ctrl+Shift+L (a `.flow` or
 * `.json` file): the loader checks only `type`, then pastes `json` and saves. The target workflow
 * must have the same mode (workflow or chatflow) as the export.
 */
export function toCozeFlowFile(canvas: CozeCanvas, mode: AppMode = "workflow"): CozeFlowFile {
  return {
    type: COZE_FLOW_FILE_TYPE,
    source: { workflowId: "", flowMode: FLOW_MODES[mode], spaceId: "", host: "", isDouyin: false },
    json: { nodes: canvas.nodes.map(withBounds), edges: canvas.edges },
  };
}
