import { WeftError } from "../../ir/errors.js";

/**
 * A refused webhook delivery: its HTTP status (400 method/content type/body/parameters, 401 signature, 404
 * unknown/unpublished/disabled, 413 too large) and a message naming the field. Nothing is stored for it.
 */
export class WebhookError extends WeftError {
  constructor(
    readonly status: 400 | 401 | 404 | 413,
    code: string,
    message: string,
    details: Record<string, unknown> = {},
  ) {
    super(code, message, details);
  }
}
