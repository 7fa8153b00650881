import { WeftError } from "../ir/errors.js";

/**
 * Stable codes for failures of a model call. Callers branch on `code`; `details` names the endpoint,
 * model, HTTP status and number of attempts so a message can say where it went wrong.
 */
export type LlmErrorCode =
  | "LLM_RATE_LIMITED"
  | "LLM_SERVER_ERROR"
  | "LLM_TIMEOUT"
  | "LLM_CONNECTION"
  | "LLM_AUTH"
  | "LLM_BAD_REQUEST"
  | "LLM_BAD_RESPONSE"
  | "LLM_ABORTED"
  | "LLM_STRUCTURED_OUTPUT_INVALID"
  | "LLM_UNSUPPORTED"
  | "LLM_CALL_FAILED";

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
