import { WeftError } from "../ir/errors.js";
import type { Chunking, ChunkingInput } from "./chunking.js";

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

/** A base's settings without its counts: what a search needs (counting a large base's chunks is not free). */
export type KnowledgeBaseInfo = Omit<KnowledgeBaseRecord, "documents" | "chunks">;

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
  /** Parent-child chunking: the index, in the document's `parents`, of the parent this child belongs to. */
  parent?: number;
}

/** The parent chunk a child hit belongs to (parent-child chunking): returned as the context instead of the child. */
export interface ParentRef {
  id: string;
  position: number;
  content: string;
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
  /** Set when the chunk is a child of parent-child chunking. */
  parent?: ParentRef;
}

/** A document as stored: its name and type, Dify's metadata and, for parent-child chunking, its parent chunks. */
export interface DocumentInput {
  name: string;
  mimeType: string;
  size: number;
  metadata?: Record<string, unknown>;
  /** Parent chunks' texts; each chunk names its parent by index (`ChunkInput.parent`). */
  parents?: string[];
}

/** Every chunk's parent index names one of the document's parents (a wrong one is `kb.invalid_parent`). */
export function checkParents(doc: DocumentInput, chunks: ChunkInput[]): void {
  const n = doc.parents?.length ?? 0;
  chunks.forEach((c, i) => {
    if (c.parent !== undefined && !(Number.isInteger(c.parent) && c.parent >= 0 && c.parent < n))
      throw new WeftError(
        "kb.invalid_parent",
        `chunk ${i + 1} of ${doc.name} names parent ${c.parent}, but the document has ${n} parent chunk(s)`,
        {
          document: doc.name,
          chunk: i + 1,
          parent: c.parent,
        },
      );
  });
}

/**
 * Knowledge bases in the run store's database. `searchText` is the backend's own full-text ranking: SQLite
 * FTS5's BM25 here, PostgreSQL's tsvector ranking for a PostgreSQL store; `score` is the raw rank turned
 * into [0, 1) (higher is better). Text reaches the index already segmented (`segmentForIndex`), so both
 * backends see the same words, CJK included.
 */
export interface KnowledgeStore {
  /** A base with this id already existing is a `kb.exists` error. */
  createBase(b: {
    id?: string;
    name: string;
    description?: string;
    chunking: ChunkingInput;
    embeddingModel?: string | null;
  }): Promise<KnowledgeBaseRecord>;
  getBase(id: string): Promise<KnowledgeBaseRecord | undefined>;
  /** The named bases that exist, without counting their documents and chunks, in one read (unknown ids are left out). */
  describeBases(ids: string[]): Promise<KnowledgeBaseInfo[]>;
  listBases(): Promise<KnowledgeBaseRecord[]>;
  deleteBase(id: string): Promise<boolean>;
  /** Stores the document and its chunks in one transaction. An unknown base is `kb.not_found`. */
  addDocument(baseId: string, doc: DocumentInput, chunks: ChunkInput[]): Promise<KnowledgeDocumentRecord>;
  listDocuments(baseId: string): Promise<KnowledgeDocumentRecord[]>;
  deleteDocument(baseId: string, documentId: string): Promise<boolean>;
  /** BM25 over the chunks of the given bases, best first. */
  searchText(baseIds: string[], query: string, limit: number): Promise<ChunkHit[]>;
  /**
   * The embedded chunks of the given bases nearest to `vector`, best first, at most `limit`; `score` is the
   * cosine similarity. PostgreSQL searches through an index (pgvector's HNSW when the server has it, else LSH
   * buckets), SQLite through sqlite-vec's vec0 tables.
   */
  searchVector(baseIds: string[], vector: number[], limit: number): Promise<ChunkHit[]>;
  /** The stored embeddings of these chunks (chunks without one, or unknown ids, are absent from the map). */
  chunkVectors(chunkIds: string[]): Promise<Map<string, Float32Array>>;
}

const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u30fc]+/gu;
// ICU's word rules segment Chinese and Japanese by dictionary whatever the locale; one segmenter serves both.
// Made on first use: building it loads ICU's dictionaries (~0.1 s), which a run without CJK text never needs.
let cjkSegmenter: Intl.Segmenter | undefined;
const cjkWords = () => (cjkSegmenter ??= new Intl.Segmenter("zh", { granularity: "word" }));

/**
 * Words for the full-text index and queries: letters and digits, lower-cased. CJK text has no spaces, so each
 * run of it is split into dictionary words by `Intl.Segmenter` (北京大学 → 北京 | 大学): indexing it per
 * character would match any text sharing characters, and as one token it would be unsearchable.
 */
export function indexWords(text: string): string[] {
  const out: string[] = [];
  let last = 0;
  const plain = (s: string) => out.push(...(s.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []));
  for (const m of text.matchAll(CJK_RUN)) {
    plain(text.slice(last, m.index));
    for (const seg of cjkWords().segment(m[0])) if (seg.isWordLike) out.push(seg.segment.toLowerCase());
    last = m.index + m[0].length;
  }
  plain(text.slice(last));
  return out;
}

export function segmentForIndex(text: string): string {
  return indexWords(text).join(" ");
}

/** A vector as stored by both stores: float32 bytes. */
export const vectorToBytes = (v: number[]): Buffer => Buffer.from(new Float32Array(v).buffer);

/** Stored float32 bytes as a vector (copied out: a driver's Buffer may be a view into a larger pool). */
export const bytesToVector = (b: Buffer): Float32Array =>
  new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));

/** Cosine similarity of two vectors (0 when either is all zeros); shared by the stores that rank in JavaScript. */
export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}
