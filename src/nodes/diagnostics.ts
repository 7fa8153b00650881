import type { Diagnostic } from "../ir/diagnostics.js";
import type { WorkflowNode } from "../ir/workflow.js";

/** How messages name a node: its type and title (or id). */
export function nodeLabel(node: WorkflowNode): string {
  return `${node.type} node "${node.title || node.id}"`;
}

export function makeDiagnostic(
  nodeId: string,
  code: string,
  field: string,
  message: string,
  severity: Diagnostic["severity"] = "error",
): Diagnostic {
  return { code, severity, nodeId, field, message };
}
