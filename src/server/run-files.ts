import type { FileService, FileValue } from "../ir/services.js";
import { extensionOf, mimeForExtension } from "../tools/mime.js";
import { ApiError } from "./errors.js";

/**
 * `files` of a run request (they become `sys.files`): each `{filename, data}` with the bytes in base64
 * (and `mime_type` if the extension does not tell). Stored in the server's file store first, so a run
 * never reads a path or id a client made up.
 */
export async function storeRunFiles(raw: unknown, files: FileService | undefined): Promise<FileValue[]> {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw))
    throw new ApiError(400, "request.invalid_files", "`files` must be a list of {filename, data}");
  if (raw.length > 0 && !files) throw new ApiError(503, "files.not_configured", "this server has no file store");
  const out: FileValue[] = [];
  for (const [i, f] of raw.entries()) {
    const bad = (why: string) => new ApiError(400, "request.invalid_files", `files[${i}]: ${why}`);
    if (!f || typeof f !== "object") throw bad("must be an object {filename, data}");
    const { filename, data, mime_type } = f as Record<string, unknown>;
    if (typeof filename !== "string" || filename.trim() === "") throw bad("filename must be a non-empty string");
    if (typeof data !== "string" || !/^[A-Za-z0-9+/=\s]*$/.test(data))
      throw bad("data must be the file's bytes in base64");
    const mimeType =
      typeof mime_type === "string" && mime_type
        ? mime_type
        : (mimeForExtension(extensionOf(filename)) ?? "application/octet-stream");
    out.push(await files!.put(new Uint8Array(Buffer.from(data, "base64")), { filename, mimeType }));
  }
  return out;
}
