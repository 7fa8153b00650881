import type Database from "better-sqlite3";
import { newId } from "../../util/ids.js";
import { WeftError } from "../../ir/errors.js";
import { ChunkingSchema } from "../../knowledge/config.js";
import {
  type ChunkHit,
  cosine,
  type ChunkInput,
  indexWords,
  type KnowledgeBaseRecord,
  type KnowledgeDocumentRecord,
  type KnowledgeStore,
  segmentForIndex,
} from "../knowledge.js";

// kb_fts holds the segmented words of each chunk (rowid = kb_chunks.rowid); the chunk's text stays in kb_chunks.
const SCHEMA = `
CREATE TABLE IF NOT EXISTS kb_bases (id TEXT PRIMARY KEY, name TEXT NOT NULL, description TEXT NOT NULL,
  chunking TEXT NOT NULL, embedding_model TEXT, created_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS kb_documents (id TEXT PRIMARY KEY, base_id TEXT NOT NULL, name TEXT NOT NULL,
  mime_type TEXT NOT NULL, size INTEGER NOT NULL, metadata TEXT NOT NULL, created_at INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS kb_documents_base ON kb_documents (base_id);
CREATE TABLE IF NOT EXISTS kb_chunks (rowid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, base_id TEXT NOT NULL,
  document_id TEXT NOT NULL, position INTEGER NOT NULL, content TEXT NOT NULL, embedding BLOB);
CREATE INDEX IF NOT EXISTS kb_chunks_base ON kb_chunks (base_id);
CREATE INDEX IF NOT EXISTS kb_chunks_document ON kb_chunks (document_id);
CREATE VIRTUAL TABLE IF NOT EXISTS kb_fts USING fts5(words, tokenize = 'porter unicode61 remove_diacritics 2');`;

type Row = Record<string, any>;

const vecToBlob = (v: number[]) => Buffer.from(new Float32Array(v).buffer);
const blobToVec = (b: Buffer) => new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));

/** FTS5 query: every word quoted (no operator injection), any of them may match; BM25 ranks. */
function ftsQuery(query: string): string | undefined {
  const words = [...new Set(indexWords(query))];
  return words.length > 0 ? words.map((w) => `"${w}"`).join(" OR ") : undefined;
}

const placeholders = (n: number) => Array.from({ length: n }, () => "?").join(",");

export class SqliteKnowledgeStore implements KnowledgeStore {
  constructor(readonly db: Database.Database) {
    db.exec(SCHEMA);
  }

  private base(r: Row): KnowledgeBaseRecord {
    const counts = this.db
      .prepare("SELECT (SELECT COUNT(*) FROM kb_documents WHERE base_id = ?) AS d, (SELECT COUNT(*) FROM kb_chunks WHERE base_id = ?) AS c")
      .get(r.id, r.id) as Row;
    return {
      id: r.id,
      name: r.name,
      description: r.description,
      chunking: ChunkingSchema.parse(JSON.parse(r.chunking)),
      embeddingModel: r.embedding_model ?? null,
      documents: counts.d,
      chunks: counts.c,
      createdAt: r.created_at,
    };
  }

  private doc(r: Row): KnowledgeDocumentRecord {
    const { n } = this.db.prepare("SELECT COUNT(*) AS n FROM kb_chunks WHERE document_id = ?").get(r.id) as Row;
    return {
      id: r.id,
      baseId: r.base_id,
      name: r.name,
      mimeType: r.mime_type,
      size: r.size,
      chunks: n,
      metadata: JSON.parse(r.metadata),
      createdAt: r.created_at,
    };
  }

  async createBase(b: Parameters<KnowledgeStore["createBase"]>[0]): Promise<KnowledgeBaseRecord> {
    const id = b.id ?? newId();
    const r = this.db
      .prepare("INSERT OR IGNORE INTO kb_bases (id, name, description, chunking, embedding_model, created_at) VALUES (?,?,?,?,?,?)")
      .run(id, b.name, b.description ?? "", JSON.stringify(b.chunking), b.embeddingModel ?? null, Date.now());
    if (r.changes === 0) throw new WeftError("kb.exists", `a knowledge base with id ${id} already exists`, { id });
    return (await this.getBase(id))!;
  }

  async getBase(id: string): Promise<KnowledgeBaseRecord | undefined> {
    const r = this.db.prepare("SELECT * FROM kb_bases WHERE id = ?").get(id) as Row | undefined;
    return r ? this.base(r) : undefined;
  }

  async listBases(): Promise<KnowledgeBaseRecord[]> {
    return (this.db.prepare("SELECT * FROM kb_bases ORDER BY created_at, id").all() as Row[]).map((r) => this.base(r));
  }

  async deleteBase(id: string): Promise<boolean> {
    return this.db.transaction(() => {
      this.db.prepare("DELETE FROM kb_fts WHERE rowid IN (SELECT rowid FROM kb_chunks WHERE base_id = ?)").run(id);
      this.db.prepare("DELETE FROM kb_chunks WHERE base_id = ?").run(id);
      this.db.prepare("DELETE FROM kb_documents WHERE base_id = ?").run(id);
      return this.db.prepare("DELETE FROM kb_bases WHERE id = ?").run(id).changes > 0;
    })();
  }

  async addDocument(
    baseId: string,
    doc: { name: string; mimeType: string; size: number; metadata?: Record<string, unknown> },
    chunks: ChunkInput[],
  ): Promise<KnowledgeDocumentRecord> {
    if (!(await this.getBase(baseId))) throw new WeftError("kb.not_found", `no knowledge base with id ${baseId}`, { id: baseId });
    const id = newId();
    this.db.transaction(() => {
      this.db
        .prepare("INSERT INTO kb_documents (id, base_id, name, mime_type, size, metadata, created_at) VALUES (?,?,?,?,?,?,?)")
        .run(id, baseId, doc.name, doc.mimeType, doc.size, JSON.stringify(doc.metadata ?? {}), Date.now());
      const insert = this.db.prepare(
        "INSERT INTO kb_chunks (id, base_id, document_id, position, content, embedding) VALUES (?,?,?,?,?,?)",
      );
      const fts = this.db.prepare("INSERT INTO kb_fts (rowid, words) VALUES (?, ?)");
      chunks.forEach((c, i) => {
        const r = insert.run(`${id}-${i + 1}`, baseId, id, i + 1, c.content, c.embedding ? vecToBlob(c.embedding) : null);
        fts.run(r.lastInsertRowid, segmentForIndex(c.content));
      });
    })();
    return this.doc(this.db.prepare("SELECT * FROM kb_documents WHERE id = ?").get(id) as Row);
  }

  async listDocuments(baseId: string): Promise<KnowledgeDocumentRecord[]> {
    return (this.db.prepare("SELECT * FROM kb_documents WHERE base_id = ? ORDER BY created_at, id").all(baseId) as Row[]).map((r) => this.doc(r));
  }

  async deleteDocument(baseId: string, documentId: string): Promise<boolean> {
    return this.db.transaction(() => {
      this.db.prepare("DELETE FROM kb_fts WHERE rowid IN (SELECT rowid FROM kb_chunks WHERE document_id = ? AND base_id = ?)").run(documentId, baseId);
      this.db.prepare("DELETE FROM kb_chunks WHERE document_id = ? AND base_id = ?").run(documentId, baseId);
      return this.db.prepare("DELETE FROM kb_documents WHERE id = ? AND base_id = ?").run(documentId, baseId).changes > 0;
    })();
  }

  private hit(r: Row, score: number): ChunkHit {
    return {
      chunkId: r.id,
      baseId: r.base_id,
      documentId: r.document_id,
      documentName: r.doc_name,
      position: r.position,
      content: r.content,
      score,
      metadata: JSON.parse(r.doc_metadata),
    };
  }

  async searchText(baseIds: string[], query: string, limit: number): Promise<ChunkHit[]> {
    const q = ftsQuery(query);
    if (!q || baseIds.length === 0) return [];
    const rows = this.db
      .prepare(
        `SELECT c.*, d.name AS doc_name, d.metadata AS doc_metadata, bm25(kb_fts) AS rank
         FROM kb_fts JOIN kb_chunks c ON c.rowid = kb_fts.rowid JOIN kb_documents d ON d.id = c.document_id
         WHERE kb_fts MATCH ? AND c.base_id IN (${placeholders(baseIds.length)})
         ORDER BY rank LIMIT ?`,
      )
      .all(q, ...baseIds, limit) as Row[];
    // bm25() is negative, lower is better; -rank / (1 - rank) maps it onto [0, 1), higher is better.
    return rows.map((r) => this.hit(r, -r.rank / (1 - r.rank)));
  }

  /**
   * Cosine over every embedded chunk of the bases, in JavaScript: SQLite has no vector index here yet
   * (sqlite-vec is the planned path), so this is the one store that still scans.
   */
  async searchVector(baseIds: string[], vector: number[], limit: number): Promise<ChunkHit[]> {
    if (baseIds.length === 0) return [];
    const rows = this.db
      .prepare(
        `SELECT c.*, d.name AS doc_name, d.metadata AS doc_metadata FROM kb_chunks c JOIN kb_documents d ON d.id = c.document_id
         WHERE c.embedding IS NOT NULL AND c.base_id IN (${placeholders(baseIds.length)})`,
      )
      .all(...baseIds) as Row[];
    return rows
      .map((r) => this.hit(r, cosine(vector, blobToVec(r.embedding))))
      .sort((a, b) => b.score - a.score)
      .slice(0, limit);
  }
}
