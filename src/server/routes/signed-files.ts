import { extname } from "node:path";
import { Hono } from "hono";
import { mimeForExtension } from "../../tools/mime.js";
import type { ServerDeps } from "../context.js";
import { FileUrlError } from "../file-signing.js";

/** Types a browser would run as a page: served as downloads, never inline. */
const ACTIVE = /^(text\/html|application\/xhtml\+xml|image\/svg\+xml|text\/xml|application\/xml)$/;

/**
 * Dify's file preview (`GET /files/:id/file-preview?timestamp=&nonce=&sign=`): the bytes of a file this
 * server stores, for a URL the service API signed less than five minutes ago. Refusals are Dify's 403/404
 * bodies; no key is needed (the signature is the credential, as in Dify).
 */
export function signedFileRoutes(deps: ServerDeps): Hono {
  const r = new Hono();
  r.get("/:id/file-preview", async (c) => {
    const id = c.req.param("id");
    try {
      deps.fileSigner.verify(id, c.req.query());
    } catch (e) {
      if (e instanceof FileUrlError) return c.json({ code: "forbidden", message: e.message, status: 403 }, 403);
      throw e;
    }
    const store = deps.services.files;
    const ext = extname(id);
    const sha = id.slice(0, 64);
    const bytes = store
      ? await store
          .get({
            type: "custom",
            transfer_method: "tool_file",
            filename: id,
            extension: ext,
            mime_type: "",
            size: -1,
            related_id: sha,
          })
          .catch(() => undefined)
      : undefined;
    if (!bytes) return c.json({ code: "file_not_found", message: "File not found", status: 404 }, 404);
    const type = mimeForExtension(ext) ?? "application/octet-stream";
    const attach = ACTIVE.test(type) || c.req.query("as_attachment") === "true";
    return c.body(bytes as Uint8Array<ArrayBuffer>, 200, {
      "content-type": type,
      "content-length": String(bytes.byteLength),
      "x-content-type-options": "nosniff",
      "cache-control": "private, max-age=300",
      ...(attach ? { "content-disposition": `attachment; filename="${id}"` } : {}),
    });
  });
  return r;
}
