import type { Chunking } from "../knowledge/config.js";

/** A knowledge base: documents split into chunks, searchable by BM25 and (when embedded) by vectors. */
export interface KnowledgeBaseRecord {
  id: string;
  name: string;
  description: string;
  chunking: Chunking;
  /** The embedding model its chunks were embedded with; null when BM25 only. */
  embeddingModel: string | null;
  documents: number;
  chunks: number;
  createdAt: number;
}

export interface KnowledgeDocumentRecord {
  id: string;
  baseId: string;
  name: string;
  mimeType: string;
  size: number;
  chunks: number;
  /** Dify's document metadata (filtered on by knowledge-retrieval metadata conditions). */
  metadata: Record<string, unknown>;
  createdAt: number;
}

export interface ChunkInput {
  content: string;
  /** Vector of the chunk's content, when the base is embedded. */
  embedding?: number[];
}

/** One retrieved chunk. `score` is higher for better matches. */
export interface ChunkHit {
  chunkId: string;
  baseId: string;
  documentId: string;
  documentName: string;
  position: number;
  content: string;
  score: number;
  metadata: Record<string, unknown>;
}

/**
 * Knowledge bases in the run store's database. `searchText` is the backend's own full-text ranking: SQLite
 * FTS5's BM25 here, PostgreSQL's tsvector ranking for a PostgreSQL store; `score` is the raw rank turned
 * into [0, 1) (higher is better). Text reaches the index already segmented (`segmentForIndex`), so both
 * backends see the same words, CJK included.
 */
export interface KnowledgeStore {
  /** A base with this id already existing is a `kb.exists` error. */
  createBase(b: { id?: string; name: string; description?: string; chunking: Chunking; embeddingModel?: string | null }): Promise<KnowledgeBaseRecord>;
  getBase(id: string): Promise<KnowledgeBaseRecord | undefined>;
  listBases(): Promise<KnowledgeBaseRecord[]>;
  deleteBase(id: string): Promise<boolean>;
  /** Stores the document and its chunks in one transaction. An unknown base is `kb.not_found`. */
  addDocument(
    baseId: string,
    doc: { name: string; mimeType: string; size: number; metadata?: Record<string, unknown> },
    chunks: ChunkInput[],
  ): Promise<KnowledgeDocumentRecord>;
  listDocuments(baseId: string): Promise<KnowledgeDocumentRecord[]>;
  deleteDocument(baseId: string, documentId: string): Promise<boolean>;
  /** BM25 over the chunks of the given bases, best first. */
  searchText(baseIds: string[], query: string, limit: number): Promise<ChunkHit[]>;
  /** Every embedded chunk of the given bases with its vector (score 0), for vector ranking. */
  embedded(baseIds: string[]): Promise<Array<ChunkHit & { embedding: number[] }>>;
}

/**
 * Words for the full-text index and queries: letters and digits, lower-cased; each CJK character a word of
 * its own (CJK text has no spaces, so a run of it would otherwise be one unsearchable token).
 */
export function indexWords(text: string): string[] {
  const spaced = text.replace(/([\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}])/gu, " $1 ");
  return spaced.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

export function segmentForIndex(text: string): string {
  return indexWords(text).join(" ");
}
