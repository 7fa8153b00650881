export type Severity = "error" | "warning" | "info";

export interface Diagnostic {
  code: string;
  severity: Severity;
  message: string;
  nodeId?: string;
  field?: string;
  edgeId?: string;
}

export function hasErrors(diags: readonly Diagnostic[]): boolean {
  return diags.some((d) => d.severity === "error");
}

export function formatDiagnostic(d: Diagnostic): string {
  const where = [d.nodeId ? `node ${d.nodeId}` : "", d.field ? `field ${d.field}` : ""].filter(Boolean).join(", ");
  return `${d.severity} ${d.code}${where ? ` (${where})` : ""}: ${d.message}`;
}
