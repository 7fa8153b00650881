/**
 * Knowledge bases over HTTP, the same operations as `weft kb`:
 * GET/POST /api/knowledge (the list carries `limits.max_document_bytes`, the largest upload taken), GET/DELETE /api/knowledge/:id, GET/POST /api/knowledge/:id/documents
 * (JSON `{filename, data: base64, mime_type?, metadata?, chunking?}` or multipart `file`, `chunking`, `metadata`),
 * POST /api/knowledge/:id/preview (the same body: the chunks it would make, nothing stored),
 * DELETE /api/knowledge/:id/documents/:doc, POST /api/knowledge/:id/search
 * (`{query, top_k?, score_threshold?, mode?}` → Dify-shaped `result` and the `mode` used).
 */
import { Hono } from "hono";
import { z } from "zod";
import { WeftError } from "../../ir/errors.js";
import { ChunkingOverrideSchema } from "../../store/chunking.js";
import { claim, visibleTo } from "../auth/ownership.js";
import { readJson, type ServerDeps } from "../context.js";
import { ApiError } from "../errors.js";
import { parseBody as parse, readDocument } from "./knowledge-upload.js";

const CreateBody = z.strictObject({
  name: z.string().trim().min(1),
  id: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,128}$/, "letters, digits, _ . - (at most 128)")
    .optional(),
  description: z.string().optional(),
  chunking: ChunkingOverrideSchema.optional(),
});
const SearchBody = z.strictObject({
  query: z.string().trim().min(1),
  top_k: z.int().min(1).max(100).default(4),
  score_threshold: z.number().min(0).max(1).nullish(),
  mode: z.enum(["keyword", "vector", "hybrid"]).optional(),
});

/**
 * Knowledge errors are the caller's: unknown base 404, existing id 409, bad chunking 400, a document
 * past a size limit (bytes, inflated bytes, extracted text) 413 as Dify answers a file too large,
 * any other unreadable document (corrupt, too deep, too slow, too much memory) 422. An extraction
 * thread that could not start is the server's fault: 503.
 */
function mapped<T>(p: Promise<T>): Promise<T> {
  return p.catch((e: unknown) => {
    if (!(e instanceof WeftError)) throw e;
    if (e.code === "kb.not_found" || e.code === "knowledge.dataset_not_found")
      throw new ApiError(404, e.code, e.message);
    if (e.code === "kb.exists") throw new ApiError(409, e.code, e.message);
    if (e.code === "knowledge.invalid_chunking" || e.code === "knowledge.not_embedded")
      throw new ApiError(400, e.code, e.message);
    if (e.code === "document.too_large") throw new ApiError(413, e.code, e.message);
    if (e.code === "document.unavailable") throw new ApiError(503, e.code, e.message);
    if (e.code.startsWith("document.") || e.code === "knowledge.empty_document")
      throw new ApiError(422, e.code, e.message);
    throw e;
  });
}

/** What an upload's form adds to the file's bytes (boundaries, part headers, the chunking field), generously. */
const FORM_HEADROOM = 16 * 1024;

/**
 * The largest document an upload can carry: the request body limit (less the form's framing) or the
 * extractor's documents.maxBytes, whichever is smaller. The studio checks a file against it before sending.
 */
function uploadLimit(deps: ServerDeps, maxBodyBytes: number): number {
  return Math.max(
    0,
    Math.min(maxBodyBytes - FORM_HEADROOM, deps.knowledge.documentLimit() ?? Number.POSITIVE_INFINITY),
  );
}

export function knowledgeRoutes(deps: ServerDeps, maxBodyBytes: number): Hono {
  const r = new Hono();
  const kb = deps.knowledge;
  // Every route but GET /:id works on the base's settings: its counts are read only where they are shown.
  const base = async (id: string) => {
    const [b] = await kb.store.describeBases([id]);
    if (!b) throw new ApiError(404, "kb.not_found", `no knowledge base with id ${id}`);
    return b;
  };

  r.get("/", async (c) => {
    const visible = await visibleTo(deps, c, "knowledge");
    return c.json({
      knowledge_bases: (await kb.store.listBases()).filter((b) => visible(b.id)),
      limits: { max_document_bytes: uploadLimit(deps, maxBodyBytes) },
    });
  });
  r.post("/", async (c) => {
    const b = parse(CreateBody, await readJson(c));
    const made = await mapped(kb.create(b));
    await claim(deps, c, "knowledge", made.id);
    return c.json(made, 201);
  });
  r.get("/:id", async (c) => {
    const b = await kb.store.getBase(c.req.param("id"));
    if (!b) throw new ApiError(404, "kb.not_found", `no knowledge base with id ${c.req.param("id")}`);
    return c.json(b);
  });
  r.delete("/:id", async (c) => {
    const b = await base(c.req.param("id"));
    await kb.store.deleteBase(b.id);
    return c.json({ deleted: b.id });
  });
  r.get("/:id/documents", async (c) => {
    const b = await base(c.req.param("id"));
    return c.json({ documents: await kb.store.listDocuments(b.id) });
  });
  r.post("/:id/documents", async (c) => {
    const b = await base(c.req.param("id"));
    const d = await readDocument(c);
    const doc = await mapped(kb.addFile(b.id, d.file, { metadata: d.metadata, chunking: d.chunking }));
    return c.json(doc, 201);
  });
  r.post("/:id/preview", async (c) => {
    const b = await base(c.req.param("id"));
    const d = await readDocument(c);
    return c.json(await mapped(kb.preview(b.id, d.file, { chunking: d.chunking })));
  });
  r.delete("/:id/documents/:doc", async (c) => {
    const b = await base(c.req.param("id"));
    if (!(await kb.store.deleteDocument(b.id, c.req.param("doc"))))
      throw new ApiError(404, "kb.document_not_found", `knowledge base ${b.id} has no document ${c.req.param("doc")}`);
    return c.json({ deleted: c.req.param("doc") });
  });
  r.post("/:id/search", async (c) => {
    const b = await base(c.req.param("id"));
    const q = parse(SearchBody, await readJson(c));
    const mode = q.mode ?? (b.embeddingModel ? "hybrid" : "keyword");
    const result = await mapped(
      kb.retrieve({
        query: q.query,
        datasetIds: [b.id],
        topK: q.top_k,
        scoreThreshold: q.score_threshold ?? undefined,
        mode,
      }),
    );
    return c.json({ query: q.query, mode, result });
  });
  return r;
}
