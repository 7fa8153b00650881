/**
 * A proposed change: the workflow an AI edit would produce, what it changes against the current version
 * (computed from the two workflows, never from the model's words) and what the analyser says about it.
 * It is accepted only if it brings no error the current version did not already have.
 */
import { analyse } from "../analysis/index.js";
import type { Diagnostic } from "../ir/diagnostics.js";
import { diffWorkflows, summarizeDiff, type WorkflowDiff } from "../ir/diff.js";
import type { Workflow } from "../ir/workflow.js";
import { nodeCatalogue } from "../nodes/index.js";

export interface Proposal {
  workflow: Workflow;
  diff: WorkflowDiff;
  /** Everything the analyser reports on the proposed workflow. */
  diagnostics: Diagnostic[];
  /** Errors the current version does not have: any of these rejects the proposal. */
  newErrors: Diagnostic[];
  summary: string;
}

// An edge's problem is keyed by the edge's id: its field (`edges[71]`) moves when an edit adds an edge before it.
const key = (d: Diagnostic) =>
  `${d.code}\u0000${d.nodeId ?? ""}\u0000${d.edgeId !== undefined ? `edge:${d.edgeId}` : (d.field ?? "")}`;

/** Errors in `after` that `before` does not have (same code, node and field). */
export function newErrors(before: readonly Diagnostic[], after: readonly Diagnostic[]): Diagnostic[] {
  const known = new Set(before.filter((d) => d.severity === "error").map(key));
  return after.filter((d) => d.severity === "error" && !known.has(key(d)));
}

export function makeProposal(
  base: Workflow | undefined,
  workflow: Workflow,
  baseDiagnostics?: readonly Diagnostic[],
): Proposal {
  const diagnostics = analyse(workflow, nodeCatalogue).diagnostics;
  const diff = diffWorkflows(base, workflow);
  const before = baseDiagnostics ?? (base ? analyse(base, nodeCatalogue).diagnostics : []);
  return { workflow, diff, diagnostics, newErrors: newErrors(before, diagnostics), summary: summarizeDiff(diff) };
}
