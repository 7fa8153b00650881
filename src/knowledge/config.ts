import { z } from "zod";
import { ChunkingSchema, DEFAULT_CHUNKING } from "../store/chunking.js";

/**
 * A rerank endpoint (Cohere/Jina-compatible `POST {baseURL}/rerank`). Nodes that turn reranking on with a
 * rerank model (`reranking_mode: reranking_model`) are reranked here; `model` overrides the node's model name.
 */
export const RerankConfigSchema = z.strictObject({
  baseURL: z.url(),
  apiKey: z.string().min(1).optional(),
  /** The environment variable holding the key (kept out of the file). */
  apiKeyEnv: z.string().min(1).optional(),
  model: z.string().min(1).optional(),
  timeoutMs: z.int().min(100).max(600_000).default(30_000),
});
export type RerankConfig = z.output<typeof RerankConfigSchema>;

/**
 * The `knowledge` section of weft.config.json. With `embedding` set, new documents are embedded with that
 * model (routed by the `llm` section like any model) and retrieval is hybrid; without it, BM25 only.
 */
export const KnowledgeConfigSchema = z.strictObject({
  chunking: ChunkingSchema.default(DEFAULT_CHUNKING),
  embedding: z
    .strictObject({
      /** A model name the llm section routes (e.g. an endpoint's embeddingModel, or models.<name>). */
      model: z.string().min(1),
      provider: z.string().default(""),
      /** Hybrid score = vectorWeight × cosine + (1 − vectorWeight) × keyword TF-IDF cosine (Dify's weighted_score). */
      vectorWeight: z.number().min(0).max(1).default(0.7),
    })
    .optional(),
  rerank: RerankConfigSchema.optional(),
});
export type KnowledgeConfig = z.output<typeof KnowledgeConfigSchema>;
export const DEFAULT_KNOWLEDGE_CONFIG: KnowledgeConfig = KnowledgeConfigSchema.parse({});
