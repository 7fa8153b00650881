import type { Workflow } from "../../ir/workflow.js";
import { ExportContext, type ExportCozeOptions } from "./context.js";
import { assignIds, convertNodes } from "./convert.js";
import { convertEdges } from "./edges.js";
import { CozeExportError } from "./errors.js";
import { buildExit, planExit } from "./exit.js";
import { fillContainers, wireDanglingToExit } from "./layout.js";
import { ExportProblems } from "./problems.js";
import { CanvasSchema, type CozeCanvas, type CozeEdge } from "./schema.js";

export type { ExportCozeOptions };

export interface CozeExportResult {
  canvas: CozeCanvas;
  /** Weft node id -> Coze node id. */
  ids: Record<string, string>;
  /** What the user must do or know in Coze (model ids, dataset ids, approximations). */
  notes: string[];
}

/**
 * Export a Weft workflow as a Coze Studio canvas, with the id map and the notes a user needs.
 * Throws CozeExportError (`coze.unsupported_node`) naming every node Coze cannot express exactly.
 */
export function exportCozeDetailed(workflow: Workflow, options: ExportCozeOptions = {}): CozeExportResult {
  const ctx = new ExportContext(workflow, options);
  const problems = new ExportProblems();
  const starts = workflow.nodes.filter((n) => n.type === "start");
  if (starts.length !== 1) {
    problems.fail(starts[1], `Coze needs exactly one start node; the workflow has ${starts.length}`);
  }
  const exitPlan = planExit(workflow);
  assignIds(workflow.nodes, starts[0], exitPlan, ctx);
  const converted = convertNodes(workflow.nodes, exitPlan, ctx, problems);
  const topEdges: CozeEdge[] = [];
  const redirect = new Map<string, string>(); // Weft end id -> Coze id its incoming edges go to
  const exit = buildExit(exitPlan, ctx, converted.cozeNodes, redirect, problems, topEdges);
  convertEdges(workflow, ctx, converted, redirect, topEdges, problems);
  fillContainers(workflow.nodes, converted);
  if (exit && exitPlan.kind === "synthetic") wireDanglingToExit(ctx, converted, topEdges);
  problems.throwIfAny();

  const canvas: CozeCanvas = {
    nodes: [...converted.cozeNodes.values(), ...(exit ? [exit] : [])],
    edges: topEdges,
    versions: { loop: "v2", batch: "v2" },
  };
  checkCanvas(canvas);
  return { canvas, ids: Object.fromEntries(ctx.cozeIds), notes: ctx.notes };
}

/** Export a Weft workflow as a Coze Studio canvas (the object `SaveWorkflowRequest.schema` holds). */
export function exportCoze(workflow: Workflow, options: ExportCozeOptions = {}): CozeCanvas {
  return exportCozeDetailed(workflow, options).canvas;
}

/** The exporter's own output must pass the Coze schema; if not, that is a bug here, reported as one. */
function checkCanvas(canvas: CozeCanvas): void {
  const checked = CanvasSchema.safeParse(canvas);
  if (checked.success) return;
  const first = checked.error.issues[0];
  throw new CozeExportError(
    "coze.invalid_canvas",
    `internal error: the exported canvas breaks the Coze schema at ${first?.path.join(".")}: ${first?.message}`,
    [],
    { issues: checked.error.issues.slice(0, 10) },
  );
}
