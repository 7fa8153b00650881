import { type EditingCode, EditingError } from "../authoring/errors.js";
import { HTTP } from "../errors/statuses.js";
import type { Diagnostic } from "../ir/diagnostics.js";
import { WeftError } from "../ir/errors.js";
import { StoreError } from "../store/errors.js";

/** An error the API answers with a status and `{error: {code, message, diagnostics?}}`. */
export class ApiError extends WeftError {
  constructor(
    readonly status: number,
    code: string,
    message: string,
    readonly diagnostics?: Diagnostic[],
    details: Record<string, unknown> = {},
  ) {
    super(code, message, details);
  }
}

/**
 * The statuses of refused proposals, undos and restores (thrown below the server as EditingErrors): an unknown
 * thing 404, a conflict with the draft or a decided proposal 409, a proposal bringing new errors 422.
 */
const EDITING_STATUS: Record<EditingCode, number> = {
  "app.not_found": 404,
  "version.not_found": 404,
  "proposal.not_found": 404,
  "proposal.decided": 409,
  "proposal.empty": 409,
  "proposal.invalid": 422,
  "proposal.before_drafts": 409,
  "draft.stale": 409,
  "undo.nothing": 409,
  "undo.stale": 409,
};

export interface ErrorBody {
  error: { code: string; message: string; diagnostics?: Diagnostic[]; issues?: unknown };
}

/**
 * Map any thrown value to a status and body: an ApiError names its status, an EditingError's code has one here,
 * any other WeftError is the caller's bad input.
 */
export function toErrorBody(e: unknown): { status: number; body: ErrorBody } {
  if (e instanceof EditingError)
    return toErrorBody(new ApiError(EDITING_STATUS[e.code], e.code, e.message, e.diagnostics));
  if (e instanceof ApiError) {
    return {
      status: e.status,
      body: { error: { code: e.code, message: e.message, ...(e.diagnostics ? { diagnostics: e.diagnostics } : {}) } },
    };
  }
  if (e instanceof StoreError) {
    // The server's own database failed (full, read-only, corrupt): not the client's doing. The file's
    // path stays in the server's log.
    const path = String(e.details.path ?? "");
    const reason = path && e.message.startsWith(`${path}: `) ? e.message.slice(path.length + 2) : e.message;
    return {
      status: HTTP.serverFault,
      body: { error: { code: e.code, message: `the server's database failed: ${reason}` } },
    };
  }
  if (e instanceof WeftError) {
    const issues = e.details.issues;
    return {
      status: HTTP.invalidInput,
      body: { error: { code: e.code, message: e.message, ...(issues ? { issues } : {}) } },
    };
  }
  const message = e instanceof Error ? e.message : String(e);
  return { status: HTTP.serverFault, body: { error: { code: "server.internal", message } } };
}
