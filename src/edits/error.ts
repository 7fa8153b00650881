import type { Diagnostic } from "../ir/diagnostics.js";
import { WeftError } from "../ir/errors.js";

/** An edit that cannot be applied to the graph it was given: `edit.<reason>`, naming the node and field. */
export class EditError extends WeftError {
  constructor(
    code: `edit.${string}`,
    message: string,
    readonly nodeId?: string,
    readonly field?: string,
  ) {
    super(code, message, { ...(nodeId ? { nodeId } : {}), ...(field ? { field } : {}) });
  }

  toDiagnostic(): Diagnostic {
    return {
      code: this.code,
      severity: "error",
      message: this.message,
      ...(this.nodeId ? { nodeId: this.nodeId } : {}),
      ...(this.field ? { field: this.field } : {}),
    };
  }
}

export function editFail(code: `edit.${string}`, message: string, nodeId?: string, field?: string): never {
  throw new EditError(code, message, nodeId, field);
}
