import { Hono } from "hono";
import type { ServerDeps } from "../context.js";
import { ApiError } from "../errors.js";
import { readMultipart } from "../multipart.js";

/** Why uploads are refused on a server without a file store, and how to give it one. */
export const NO_FILE_STORE =
  'this server has no file store: set `files.dir` in weft.config.json (e.g. {"files": {"dir": ".weft/files"}})';

/**
 * Uploads for file inputs (`POST /api/files`, multipart field `file`): the bytes go to the configured file
 * service and the answer is the Dify file value to pass as a run input.
 */
export function fileRoutes(deps: ServerDeps): Hono {
  const r = new Hono();
  r.post("/", async (c) => {
    const files = deps.services.files;
    if (!files) throw new ApiError(503, "files.not_configured", NO_FILE_STORE);
    if (!(c.req.header("content-type") ?? "").startsWith("multipart/form-data"))
      throw new ApiError(400, "request.not_multipart", "send the file as multipart/form-data in a field named `file`");
    const form = await readMultipart(c.req);
    // One file per upload: the studio sends one, and a second would be dropped unseen.
    const f = form.file;
    if (Array.isArray(f))
      throw new ApiError(400, "request.too_many_files", "send one file per upload in the field `file`");
    if (!(f instanceof File))
      throw new ApiError(400, "request.missing_file", "the form has no file in a field named `file`");
    const value = await files.put(new Uint8Array(await f.arrayBuffer()), {
      filename: f.name || "upload",
      mimeType: f.type,
      transferMethod: "local_file",
    });
    return c.json({ file: value }, 201);
  });
  return r;
}
