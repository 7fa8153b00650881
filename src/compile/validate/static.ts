import { analyse } from "../../analysis/index.js";
import type { Diagnostic } from "../../ir/diagnostics.js";
import { formatDiagnostic } from "../../ir/diagnostics.js";
import { nodeCatalogue } from "../../nodes/index.js";
import type { Lowered } from "../lower.js";

export interface StaticFinding extends Diagnostic {
  /** The model construct (step, branch, loop) the node came from. */
  construct?: string;
}

export interface StaticReport {
  ok: boolean;
  errors: StaticFinding[];
  warnings: StaticFinding[];
}

/**
 * The static half of faithfulness: the lowering's own checks (unknown tools and artifacts, types at joins)
 * plus the analyser on the lowered IR (well-formedness; every read available on every path, i.e.
 * `ref.not_available` for an artifact missing on one path of a join; type agreement).
 */
export function staticCheck(lowered: Lowered): StaticReport {
  const all = [...lowered.diagnostics, ...analyse(lowered.workflow, nodeCatalogue).diagnostics].map(
    (d): StaticFinding => {
      const construct = d.nodeId ? lowered.origins[d.nodeId] : undefined;
      return construct ? { ...d, construct } : d;
    },
  );
  const errors = all.filter((d) => d.severity === "error");
  return { ok: errors.length === 0, errors, warnings: all.filter((d) => d.severity === "warning") };
}

/** Static errors as revision feedback, named by model construct. */
export function staticFeedback(r: StaticReport): string[] {
  return r.errors.map((d) => `${d.construct ? `In "${d.construct}": ` : ""}${formatDiagnostic(d)}`);
}
