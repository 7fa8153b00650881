import { z } from "zod";
import type { FileValue } from "../../ir/services.js";
import { badParam } from "./errors.js";

/**
 * What a file input accepts, in Dify's FileUploadConfig terms: a start variable's `allowed_file_types`,
 * `allowed_file_extensions`, `allowed_file_upload_methods`, or the app's `features.file_upload` for `files`
 * (whose image transfer methods are its upload methods, as Dify's FileUploadConfigManager builds them).
 */
export const FileRules = z
  .object({
    allowed_file_types: z.array(z.string()).nullish(),
    allowed_file_extensions: z.array(z.string()).nullish(),
    allowed_file_upload_methods: z.array(z.string()).nullish(),
    image_transfer_methods: z.array(z.string()).nullish(),
  })
  .loose();
export type FileRules = z.infer<typeof FileRules>;

/** The rules of a start variable (its own fields; `allowed_file_extensions` is a list even when empty, as in Dify). */
export function variableRules(v: Record<string, unknown>): FileRules {
  const p = FileRules.safeParse(v);
  const r = p.success ? p.data : {};
  return { ...r, allowed_file_extensions: r.allowed_file_extensions ?? [], image_transfer_methods: null };
}

/** The rules of `files` from `features.file_upload` (undefined when the app does not say). */
export function featureRules(upload: unknown): FileRules | undefined {
  const p = FileRules.safeParse(upload);
  if (!p.success) return undefined;
  return { ...p.data, image_transfer_methods: p.data.allowed_file_upload_methods ?? null };
}

/**
 * Dify's `_is_file_valid_with_config`, exactly: the type the client declared (custom when it declared none) must be
 * allowed unless it is custom; a custom file's extension must be listed; an image is checked against the image
 * transfer methods (none for a start variable, so its upload method is not checked), anything else against the
 * upload methods. Refused as Dify refuses it: 400 `invalid_param`, "File validation failed for file: NAME", here
 * followed by the input and the reason.
 */
export function checkFileRules(rules: FileRules, declared: string | undefined, file: FileValue, where: string): void {
  const type = declared ?? "custom";
  const method = String(file.transfer_method);
  const ext = typeof file.extension === "string" ? file.extension : "";
  const fail = (why: string) => {
    // Dify's message first (clients match on it), then which input and why.
    throw badParam(`File validation failed for file: ${file.filename} (${where}: ${why})`);
  };
  const types = rules.allowed_file_types ?? [];
  if (types.length > 0 && type !== "custom" && !types.includes(type))
    fail(`type ${type} is not one of allowed_file_types ${types.join(", ")}`);
  const exts = rules.allowed_file_extensions;
  if (type === "custom" && exts != null && !exts.includes(ext))
    fail(
      `a custom file's extension ${ext || "(none)"} is not one of allowed_file_extensions ${exts.join(", ") || "(none)"}`,
    );
  if (type === "image") {
    const methods = rules.image_transfer_methods ?? [];
    if (methods.length > 0 && !methods.includes(method)) fail(`transfer method ${method} is not allowed for images`);
    return;
  }
  const methods = rules.allowed_file_upload_methods ?? [];
  if (methods.length > 0 && !methods.includes(method))
    fail(`transfer method ${method} is not one of allowed_file_upload_methods ${methods.join(", ")}`);
}
