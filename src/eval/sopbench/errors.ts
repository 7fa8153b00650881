import { WeftError } from "../../ir/errors.js";

/**
 * Stable codes for the SOP-Bench environment:
 * - sopbench.unknown_domain / sopbench.unknown_tool: a name that is not in the corpus.
 * - sopbench.invalid_args: arguments break the tool's JSON Schema (details.issues lists path + reason).
 * - sopbench.tool_error: the tool ran and refused, as the original Python raised (details.tool, message is
 *   what the agent would see after "Error: ").
 * - sopbench.data: the corpus on disk is missing or malformed.
 */
export class SopBenchError extends WeftError {}

export function unknownDomain(domain: string, known: readonly string[]): SopBenchError {
  return new SopBenchError("sopbench.unknown_domain", `Unknown SOP-Bench domain "${domain}"`, {
    domain,
    known: [...known],
  });
}

/** A refusal of the tool itself (mirrors an exception in the original tools.py). */
export class ToolCallError extends SopBenchError {
  constructor(tool: string, message: string, details: Record<string, unknown> = {}) {
    super("sopbench.tool_error", message, { tool, ...details });
  }
}
