import type { FileValue } from "../ir/services.js";

/** A Dify file object (as node outputs and run inputs carry them). */
export function isFileValue(v: unknown): v is FileValue {
  if (!v || typeof v !== "object" || Array.isArray(v)) return false;
  const o = v as Record<string, unknown>;
  return o.dify_model_identity === "__dify__file__" || (typeof o.transfer_method === "string" && "filename" in o);
}

/** A value as files: one file, the files in a list, or none. */
export function fileList(v: unknown): FileValue[] {
  if (isFileValue(v)) return [v];
  if (Array.isArray(v)) return v.filter(isFileValue);
  return [];
}
