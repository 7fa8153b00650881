import { WeftError } from "../ir/errors.js";

/**
 * Stable codes of sandbox failures. Callers (the code node, traces, tests) match on these, never
 * on message text.
 */
export type SandboxErrorCode =
  | "sandbox.timeout"
  | "sandbox.memory"
  | "sandbox.forbidden"
  | "sandbox.output_too_large"
  | "sandbox.runtime_error"
  | "sandbox.syntax_error"
  | "sandbox.no_main"
  | "sandbox.bad_result"
  | "sandbox.bad_input"
  | "sandbox.aborted"
  | "sandbox.unavailable"
  | "sandbox.crashed"
  | "sandbox.egress_refused";

export interface SandboxErrorDetails extends Record<string, unknown> {
  language: "javascript" | "python3";
  /** 1-based line in the user's code, when the engine reported one. */
  line?: number;
  /** The user's exception type (TypeError, KeyError ...), when there was one. */
  errorType?: string;
}

export class SandboxError extends WeftError {
  declare readonly code: SandboxErrorCode;
  constructor(code: SandboxErrorCode, message: string, details: SandboxErrorDetails) {
    super(code, message, details);
  }
  get line(): number | undefined {
    return this.details.line as number | undefined;
  }
}

/** Keeps user-facing messages readable: QuickJS stack traces and Python reprs can be megabytes. */
export function clip(text: string, max = 2000): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length - max} more characters)`;
}
