import { randomUUID } from "node:crypto";
import { Hono } from "hono";
import type { ServerDeps } from "../context.js";
import { readMultipart } from "../multipart.js";
import { NO_FILE_STORE } from "../routes/files.js";
import { optionalUserOf, type V1Env } from "./env.js";
import { DifyError } from "./errors.js";
import { fileOrigin } from "./file-urls.js";

/**
 * `POST /v1/files/upload` (multipart `file` + `user`): the bytes go to the server's file store and the upload
 * is remembered for this app, so `{transfer_method: local_file, upload_file_id}` in inputs or files finds it.
 */
export function fileRoutes(deps: ServerDeps): Hono<V1Env> {
  const r = new Hono<V1Env>();
  r.post("/files/upload", async (c) => {
    const app = c.get("app");
    const store = deps.services.files;
    if (!store) throw new DifyError(503, "files_not_configured", NO_FILE_STORE);
    if (!(c.req.header("content-type") ?? "").startsWith("multipart/form-data"))
      throw new DifyError(400, "no_file_uploaded", "Please upload your file (multipart/form-data, field `file`).");
    const form = await readMultipart(c.req);
    const f = form.file;
    if (Array.isArray(f)) throw new DifyError(400, "too_many_files", "Only one file is allowed.");
    if (!(f instanceof File)) throw new DifyError(400, "no_file_uploaded", "Please upload your file.");
    if (!f.name) throw new DifyError(400, "filename_not_exists_error", "The specified filename does not exist.");
    const user = optionalUserOf(typeof form.user === "string" ? form.user : undefined);
    const file = await store.put(new Uint8Array(await f.arrayBuffer()), {
      filename: f.name,
      mimeType: f.type,
      transferMethod: "local_file",
    });
    const id = randomUUID();
    const now = Date.now();
    // Dify's upload answer links the file with the same signed, expiring preview URL its outputs get.
    const preview = deps.fileSigner.path(file);
    await deps.stores.service.putUpload({ id, appId: app.id, user, file, createdAt: now });
    return c.json(
      {
        id,
        name: file.filename,
        size: file.size,
        extension: file.extension.replace(/^\./, ""),
        mime_type: file.mime_type,
        created_by: user,
        created_at: Math.floor(now / 1000),
        preview_url: preview ? `${fileOrigin(c)}${preview}` : null,
        source_url: null,
      },
      201,
    );
  });
  return r;
}
