import { WeftError } from "../ir/errors.js";

/**
 * Stable codes for failures of a model call. Callers branch on `code`; `details` names the endpoint,
 * model, HTTP status and number of attempts so a message can say where it went wrong.
 */
export type LlmErrorCode =
  | "llm.rate_limited"
  | "llm.server_error"
  | "llm.timeout"
  | "llm.connection"
  | "llm.auth"
  | "llm.bad_request"
  | "llm.bad_response"
  | "llm.aborted"
  | "llm.structured_output_invalid"
  | "llm.unsupported"
  | "llm.call_failed";

export class LlmError extends WeftError {
  declare readonly code: LlmErrorCode;
  /** Whether trying the same request again may succeed. */
  retryable: boolean;
  constructor(code: LlmErrorCode, message: string, details: Record<string, unknown> = {}, retryable = false) {
    super(code, message, details);
    this.retryable = retryable;
  }
}

/** The LLM configuration (file or environment) is malformed; `details.issues` lists each problem. */
export class LlmConfigError extends WeftError {}
