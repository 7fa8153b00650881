/**
 * A document sent to /api/knowledge/:id/documents (and /preview) either way the API takes it: JSON with the
 * bytes in base64 (`{filename, data, mime_type?, metadata?, chunking?}`, what `weft kb` scripts send) or
 * multipart/form-data (`file`, and optional `chunking` and `metadata` fields holding JSON), what the studio
 * sends so its upload can report progress. Both pass the server's body limit first; the document limits
 * (`documents.maxBytes` …) apply when the text is extracted.
 */
import type { Context } from "hono";
import { z } from "zod";
import { ChunkingOverrideSchema } from "../../store/chunking.js";
import { extensionOf, mimeForExtension } from "../../tools/mime.js";
import { readJson } from "../context.js";
import { ApiError } from "../errors.js";
import { readMultipart } from "../multipart.js";

const DocumentBody = z.strictObject({
  filename: z.string().trim().min(1),
  data: z.string().regex(/^[A-Za-z0-9+/=\s]*$/, "the file's bytes in base64"),
  mime_type: z.string().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  chunking: ChunkingOverrideSchema.optional(),
});
const Metadata = z.record(z.string(), z.unknown());

export interface UploadedDocument {
  file: { name: string; bytes: Uint8Array; mimeType: string; extension: string };
  metadata?: Record<string, unknown>;
  chunking?: z.output<typeof ChunkingOverrideSchema>;
}

export function parseBody<T>(schema: z.ZodType<T>, body: unknown, prefix = ""): T {
  const r = schema.safeParse(body);
  if (!r.success) {
    const i = r.error.issues[0]!;
    const at = [prefix, ...i.path].filter((p) => p !== "").join(".");
    throw new ApiError(400, "request.invalid", `${at || "(body)"}: ${i.message}`);
  }
  return r.data;
}

function fileOf(name: string, bytes: Uint8Array, mime: string | undefined): UploadedDocument["file"] {
  const extension = extensionOf(name);
  return { name, bytes, extension, mimeType: mime || mimeForExtension(extension) || "application/octet-stream" };
}

/** A multipart text field holding JSON, checked against its schema; named in the error when it is not. */
function jsonField<T>(form: Record<string, unknown>, field: string, schema: z.ZodType<T>): T | undefined {
  const v = form[field];
  if (v === undefined || v === "") return undefined;
  if (typeof v !== "string")
    throw new ApiError(400, "request.invalid", `${field}: a JSON text field, not a file or a repeated field`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(v);
  } catch (e) {
    throw new ApiError(400, "request.invalid_json", `${field}: not valid JSON: ${(e as Error).message}`);
  }
  return parseBody(schema, parsed, field);
}

export async function readDocument(c: Context): Promise<UploadedDocument> {
  if (!(c.req.header("content-type") ?? "").startsWith("multipart/form-data")) {
    const d = parseBody(DocumentBody, await readJson(c));
    return {
      file: fileOf(d.filename, new Uint8Array(Buffer.from(d.data, "base64")), d.mime_type),
      metadata: d.metadata,
      chunking: d.chunking,
    };
  }
  const form = await readMultipart(c.req);
  const f = form.file;
  if (Array.isArray(f))
    throw new ApiError(400, "request.too_many_files", "send one document per upload in the field `file`");
  if (!(f instanceof File))
    throw new ApiError(400, "request.missing_file", "the form has no document in a field named `file`");
  if (!f.name.trim())
    throw new ApiError(
      400,
      "request.invalid",
      "file: the document needs a file name (its extension says how to read it)",
    );
  for (const k of Object.keys(form)) {
    if (!["file", "chunking", "metadata"].includes(k))
      throw new ApiError(400, "request.invalid", `${k}: unknown field (the form takes file, chunking, metadata)`);
  }
  return {
    file: fileOf(f.name, new Uint8Array(await f.arrayBuffer()), f.type),
    chunking: jsonField(form, "chunking", ChunkingOverrideSchema),
    metadata: jsonField(form, "metadata", Metadata),
  };
}
