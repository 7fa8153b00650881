import { WeftError } from "../../ir/errors.js";

/**
 * Stable codes for the SOP-Bench environment:
 * - SOPBENCH_UNKNOWN_DOMAIN / SOPBENCH_UNKNOWN_TOOL: a name that is not in the corpus.
 * - SOPBENCH_INVALID_ARGS: arguments break the tool's JSON Schema (details.issues lists path + reason).
 * - SOPBENCH_TOOL_ERROR: the tool ran and refused, as the original Python raised (details.tool, message is
 *   what the agent would see after "Error: ").
 * - SOPBENCH_DATA: the corpus on disk is missing or malformed.
 */
export class SopBenchError extends WeftError {}

export function unknownDomain(domain: string, known: readonly string[]): SopBenchError {
  return new SopBenchError("SOPBENCH_UNKNOWN_DOMAIN", `Unknown SOP-Bench domain "${domain}"`, {
    domain,
    known: [...known],
  });
}

/** A refusal of the tool itself (mirrors an exception in the original tools.py). */
export class ToolCallError extends SopBenchError {
  constructor(tool: string, message: string, details: Record<string, unknown> = {}) {
    super("SOPBENCH_TOOL_ERROR", message, { tool, ...details });
  }
}
