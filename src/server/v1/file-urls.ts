import type { Context } from "hono";
import type { ServerDeps } from "../context.js";
import { withFileUrls } from "../file-signing.js";

/**
 * Gives the files of a /v1 response Dify's signed, expiring URLs, on the address the client reached (or
 * `WEFT_FILES_URL`, Dify's FILES_URL, for a server behind a proxy).
 */
export function fileUrlsFor(c: Context, deps: ServerDeps): <T>(value: T) => T {
  const origin = fileOrigin(c);
  return (value) => withFileUrls(value, deps.fileSigner, origin);
}

/** The address signed file URLs start with: `WEFT_FILES_URL` (Dify's FILES_URL) or the one the client reached. */
export function fileOrigin(c: Context): string {
  return (process.env.WEFT_FILES_URL || new URL(c.req.url).origin).replace(/\/$/, "");
}
