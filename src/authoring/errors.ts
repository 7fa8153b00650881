import type { Diagnostic } from "../ir/diagnostics.js";
import { WeftError } from "../ir/errors.js";

/**
 * Why a proposal, undo or restore was refused; every refusal changed nothing. The server answers each code
 * with its HTTP status (src/server/errors.ts), the CLI prints it and goes on.
 */
export type EditingCode =
  | "app.not_found"
  | "version.not_found"
  | "proposal.not_found"
  | "proposal.decided"
  | "proposal.empty"
  | "proposal.invalid"
  | "proposal.before_drafts"
  | "draft.stale"
  | "undo.nothing"
  | "undo.stale";

export class EditingError extends WeftError {
  declare readonly code: EditingCode;
  constructor(
    code: EditingCode,
    message: string,
    /** The new errors that make a proposal invalid (`proposal.invalid`). */
    readonly diagnostics?: Diagnostic[],
  ) {
    super(code, message);
  }
}
