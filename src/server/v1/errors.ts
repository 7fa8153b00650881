import { FormError } from "../../engine/human-input.js";
import { InputError } from "../../engine/inputs.js";
import { WeftError } from "../../ir/errors.js";
import { StoreError } from "../../store/errors.js";
import { ApiError } from "../errors.js";

/** An error the service API answers as Dify does: HTTP `status` and the body `{code, message, status}`. */
export class DifyError extends WeftError {
  constructor(
    readonly status: number,
    code: string,
    message: string,
  ) {
    super(code, message);
  }
}

export interface DifyErrorBody {
  code: string;
  message: string;
  status: number;
}

/** Weft's form errors by Dify's codes for them (Get/Submit Human Input Form). */
const FORM_ERRORS: Record<string, [number, string]> = {
  "form.not_found": [404, "not_found"],
  "form.submitted": [412, "human_input_form_submitted"],
  "form.expired": [412, "human_input_form_expired"],
};

/** Any thrown value as Dify's error body; typed errors keep their message, anything else is a 500. */
export function difyErrorBody(e: unknown): DifyErrorBody {
  if (e instanceof DifyError) return { code: e.code, message: e.message, status: e.status };
  if (e instanceof InputError) return { code: "invalid_param", message: e.message, status: 400 };
  if (e instanceof FormError) {
    const [status, code] = FORM_ERRORS[e.code] ?? [400, "invalid_form_data"];
    return { code, message: e.message, status };
  }
  if (e instanceof ApiError) {
    const code =
      e.status === 413
        ? "file_too_large"
        : e.status === 404
          ? "not_found"
          : e.status >= 500
            ? "internal_server_error"
            : "invalid_param";
    return { code, message: e.message, status: e.status };
  }
  if (e instanceof StoreError) {
    return { code: "internal_server_error", message: "Internal Server Error, please contact support.", status: 500 };
  }
  if (e instanceof WeftError) return { code: "invalid_param", message: e.message, status: 400 };
  return { code: "internal_server_error", message: "Internal Server Error, please contact support.", status: 500 };
}

export const notFound = (what: string) => new DifyError(404, "not_found", what);
export const badParam = (message: string) => new DifyError(400, "invalid_param", message);
