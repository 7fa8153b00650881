import { WeftError } from "../ir/errors.js";

/** Stable codes of template failures; nodes report them as their own error code. */
export type JinjaErrorCode =
  | "jinja.syntax"
  | "jinja.render"
  | "jinja.too_long"
  | "jinja.too_many_steps"
  | "jinja.too_large"
  | "jinja.too_deep"
  | "jinja.timeout"
  | "jinja.memory"
  | "jinja.cancelled"
  | "jinja.bad_input"
  | "jinja.unavailable";

export class JinjaError extends WeftError {
  declare readonly code: JinjaErrorCode;
  constructor(code: JinjaErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(code, message, details);
  }
}
