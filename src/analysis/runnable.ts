import type { Diagnostic } from "../ir/diagnostics.js";

/**
 * Findings Dify does not stop a run for: a reference missing on some path (the reader gets null or the
 * raw `node.var` text, as Dify renders it), a reference to an output the node does not declare, a value of
 * an unexpected type, a node no path reaches (never run). Asked for (`weft run --allow-warnings`, the
 * API's `allow_warnings`), a workflow whose only errors are these runs, with them reported as warnings.
 * Generation and repair stay strict: they never pass this.
 */
export const DIFY_RUNNABLE_CODES: ReadonlySet<string> = new Set([
  "ref.not_available",
  "ref.missing_output",
  "ref.missing_node",
  "template.unresolved",
  "type.mismatch",
  "graph.unreachable",
]);

export interface RunGate {
  /** Errors that refuse the run even when warnings are allowed. */
  blocking: Diagnostic[];
  /** Errors downgraded to warnings because the caller asked to run what Dify runs. */
  downgraded: Diagnostic[];
}

/** Which diagnostics stop a run: every error, or with `allowWarnings` only those Dify would refuse too. */
export function runGate(diagnostics: readonly Diagnostic[], opts: { allowWarnings?: boolean } = {}): RunGate {
  const errors = diagnostics.filter((d) => d.severity === "error");
  if (!opts.allowWarnings) return { blocking: errors, downgraded: [] };
  return {
    blocking: errors.filter((d) => !DIFY_RUNNABLE_CODES.has(d.code)),
    downgraded: errors
      .filter((d) => DIFY_RUNNABLE_CODES.has(d.code))
      .map((d) => ({ ...d, severity: "warning" as const })),
  };
}
