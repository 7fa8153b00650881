import type Database from "better-sqlite3";
import { WeftError } from "../../ir/errors.js";
import { newId } from "../../util/ids.js";
import { ChunkingSchema } from "../chunking.js";
import {
  bytesToVector,
  type ChunkHit,
  type ChunkInput,
  checkParents,
  type DocumentInput,
  indexWords,
  type KnowledgeBaseInfo,
  type KnowledgeBaseRecord,
  type KnowledgeDocumentRecord,
  type KnowledgeStore,
  segmentForIndex,
  vectorToBytes,
} from "../knowledge.js";
import { SqliteVectorIndex } from "./vector-index.js";

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
CREATE VIRTUAL TABLE IF NOT EXISTS kb_fts USING fts5(words, tokenize = 'porter unicode61 remove_diacritics 2');
CREATE TABLE IF NOT EXISTS kb_parents (rowid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, base_id TEXT NOT NULL,
  document_id TEXT NOT NULL, position INTEGER NOT NULL, content TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS kb_parents_document ON kb_parents (document_id);
CREATE INDEX IF NOT EXISTS kb_parents_base ON kb_parents (base_id);`;

// Columns added after the first release of kb_chunks: a child's parent, and the dimension of the vector index
// holding its embedding (NULL: not indexed yet, e.g. stored before the index existed; filled on open).
const ADDED_COLUMNS: Array<[string, string]> = [
  ["parent_id", "TEXT"],
  ["vec_dim", "INTEGER"],
];

type Row = Record<string, any>;

// A hit's row: the chunk, its document's name and metadata, and its parent when it is a child.
const HIT_SELECT = `SELECT c.*, d.name AS doc_name, d.metadata AS doc_metadata, p.position AS parent_position, p.content AS parent_content
  FROM kb_chunks c JOIN kb_documents d ON d.id = c.document_id LEFT JOIN kb_parents p ON p.id = c.parent_id`;

/** FTS5 query: every word quoted (no operator injection), any of them may match; BM25 ranks. */
function ftsQuery(query: string): string | undefined {
  const words = [...new Set(indexWords(query))];
  return words.length > 0 ? words.map((w) => `"${w}"`).join(" OR ") : undefined;
}

const placeholders = (n: number) => Array.from({ length: n }, () => "?").join(",");

export class SqliteKnowledgeStore implements KnowledgeStore {
  private readonly vectors: SqliteVectorIndex;

  constructor(readonly db: Database.Database) {
    db.exec(SCHEMA);
    const have = new Set((db.prepare("PRAGMA table_info(kb_chunks)").all() as Row[]).map((c) => c.name));
    for (const [name, decl] of ADDED_COLUMNS)
      if (!have.has(name)) db.exec(`ALTER TABLE kb_chunks ADD COLUMN ${name} ${decl}`);
    db.exec(
      "CREATE INDEX IF NOT EXISTS kb_chunks_unindexed ON kb_chunks (rowid) WHERE embedding IS NOT NULL AND vec_dim IS NULL",
    );
    this.vectors = new SqliteVectorIndex(db);
    this.vectors.backfill();
  }

  private info(r: Row): KnowledgeBaseInfo {
    return {
      id: r.id,
      name: r.name,
      description: r.description,
      chunking: ChunkingSchema.parse(JSON.parse(r.chunking)),
      embeddingModel: r.embedding_model ?? null,
      createdAt: r.created_at,
    };
  }

  private base(r: Row): KnowledgeBaseRecord {
    const counts = this.db
      .prepare(
        "SELECT (SELECT COUNT(*) FROM kb_documents WHERE base_id = ?) AS d, (SELECT COUNT(*) FROM kb_chunks WHERE base_id = ?) AS c",
      )
      .get(r.id, r.id) as Row;
    return { ...this.info(r), documents: counts.d, chunks: counts.c };
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
      .prepare(
        "INSERT OR IGNORE INTO kb_bases (id, name, description, chunking, embedding_model, created_at) VALUES (?,?,?,?,?,?)",
      )
      .run(id, b.name, b.description ?? "", JSON.stringify(b.chunking), b.embeddingModel ?? null, Date.now());
    if (r.changes === 0) throw new WeftError("kb.exists", `a knowledge base with id ${id} already exists`, { id });
    return (await this.getBase(id))!;
  }

  async getBase(id: string): Promise<KnowledgeBaseRecord | undefined> {
    const r = this.db.prepare("SELECT * FROM kb_bases WHERE id = ?").get(id) as Row | undefined;
    return r ? this.base(r) : undefined;
  }

  async describeBases(ids: string[]): Promise<KnowledgeBaseInfo[]> {
    if (ids.length === 0) return [];
    const rows = this.db
      .prepare(`SELECT * FROM kb_bases WHERE id IN (${placeholders(ids.length)}) ORDER BY created_at, id`)
      .all(...ids) as Row[];
    return rows.map((r) => this.info(r));
  }

  async listBases(): Promise<KnowledgeBaseRecord[]> {
    return (this.db.prepare("SELECT * FROM kb_bases ORDER BY created_at, id").all() as Row[]).map((r) => this.base(r));
  }

  async deleteBase(id: string): Promise<boolean> {
    return this.db.transaction(() => {
      this.db.prepare("DELETE FROM kb_fts WHERE rowid IN (SELECT rowid FROM kb_chunks WHERE base_id = ?)").run(id);
      this.vectors.remove(
        this.db
          .prepare("SELECT rowid, vec_dim FROM kb_chunks WHERE base_id = ? AND vec_dim IS NOT NULL")
          .all(id) as Array<{ rowid: number; vec_dim: number }>,
      );
      this.db.prepare("DELETE FROM kb_chunks WHERE base_id = ?").run(id);
      this.db.prepare("DELETE FROM kb_parents WHERE base_id = ?").run(id);
      this.db.prepare("DELETE FROM kb_documents WHERE base_id = ?").run(id);
      return this.db.prepare("DELETE FROM kb_bases WHERE id = ?").run(id).changes > 0;
    })();
  }

  async addDocument(baseId: string, doc: DocumentInput, chunks: ChunkInput[]): Promise<KnowledgeDocumentRecord> {
    if (!this.db.prepare("SELECT 1 FROM kb_bases WHERE id = ?").get(baseId))
      throw new WeftError("kb.not_found", `no knowledge base with id ${baseId}`, { id: baseId });
    checkParents(doc, chunks);
    const id = newId();
    this.db.transaction(() => {
      this.db
        .prepare(
          "INSERT INTO kb_documents (id, base_id, name, mime_type, size, metadata, created_at) VALUES (?,?,?,?,?,?,?)",
        )
        .run(id, baseId, doc.name, doc.mimeType, doc.size, JSON.stringify(doc.metadata ?? {}), Date.now());
      const parent = this.db.prepare(
        "INSERT INTO kb_parents (id, base_id, document_id, position, content) VALUES (?,?,?,?,?)",
      );
      (doc.parents ?? []).forEach((content, i) => {
        parent.run(`${id}-p${i + 1}`, baseId, id, i + 1, content);
      });
      const insert = this.db.prepare(
        "INSERT INTO kb_chunks (id, base_id, document_id, position, content, embedding, parent_id, vec_dim) VALUES (?,?,?,?,?,?,?,?)",
      );
      const fts = this.db.prepare("INSERT INTO kb_fts (rowid, words) VALUES (?, ?)");
      chunks.forEach((c, i) => {
        const parentId = c.parent === undefined ? null : `${id}-p${c.parent + 1}`;
        const vector = c.embedding && c.embedding.length > 0 ? c.embedding : undefined;
        const r = insert.run(
          `${id}-${i + 1}`,
          baseId,
          id,
          i + 1,
          c.content,
          vector ? vectorToBytes(vector) : null,
          parentId,
          vector?.length ?? null,
        );
        fts.run(r.lastInsertRowid, segmentForIndex(c.content));
        if (vector) this.vectors.add(r.lastInsertRowid, baseId, vector);
      });
    })();
    return this.doc(this.db.prepare("SELECT * FROM kb_documents WHERE id = ?").get(id) as Row);
  }

  async listDocuments(baseId: string): Promise<KnowledgeDocumentRecord[]> {
    return (
      this.db.prepare("SELECT * FROM kb_documents WHERE base_id = ? ORDER BY created_at, id").all(baseId) as Row[]
    ).map((r) => this.doc(r));
  }

  async deleteDocument(baseId: string, documentId: string): Promise<boolean> {
    return this.db.transaction(() => {
      this.db
        .prepare(
          "DELETE FROM kb_fts WHERE rowid IN (SELECT rowid FROM kb_chunks WHERE document_id = ? AND base_id = ?)",
        )
        .run(documentId, baseId);
      this.vectors.remove(
        this.db
          .prepare("SELECT rowid, vec_dim FROM kb_chunks WHERE document_id = ? AND base_id = ? AND vec_dim IS NOT NULL")
          .all(documentId, baseId) as Array<{ rowid: number; vec_dim: number }>,
      );
      this.db.prepare("DELETE FROM kb_chunks WHERE document_id = ? AND base_id = ?").run(documentId, baseId);
      this.db.prepare("DELETE FROM kb_parents WHERE document_id = ? AND base_id = ?").run(documentId, baseId);
      return (
        this.db.prepare("DELETE FROM kb_documents WHERE id = ? AND base_id = ?").run(documentId, baseId).changes > 0
      );
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
      ...(r.parent_id ? { parent: { id: r.parent_id, position: r.parent_position, content: r.parent_content } } : {}),
    };
  }

  async searchText(baseIds: string[], query: string, limit: number): Promise<ChunkHit[]> {
    const q = ftsQuery(query);
    if (!q || baseIds.length === 0) return [];
    const rows = this.db
      .prepare(
        `SELECT c.*, d.name AS doc_name, d.metadata AS doc_metadata, p.position AS parent_position, p.content AS parent_content,
           bm25(kb_fts) AS rank
         FROM kb_fts JOIN kb_chunks c ON c.rowid = kb_fts.rowid JOIN kb_documents d ON d.id = c.document_id
           LEFT JOIN kb_parents p ON p.id = c.parent_id
         WHERE kb_fts MATCH ? AND c.base_id IN (${placeholders(baseIds.length)})
         ORDER BY rank LIMIT ?`,
      )
      .all(q, ...baseIds, limit) as Row[];
    // bm25() is negative, lower is better; -rank / (1 - rank) maps it onto [0, 1), higher is better.
    return rows.map((r) => this.hit(r, -r.rank / (1 - r.rank)));
  }

  async chunkVectors(chunkIds: string[]): Promise<Map<string, Float32Array>> {
    const out = new Map<string, Float32Array>();
    // A statement's variables are limited (32,766); hybrid search asks for a few dozen at most.
    for (let i = 0; i < chunkIds.length; i += 500) {
      const ids = chunkIds.slice(i, i + 500);
      const rows = this.db
        .prepare(
          `SELECT id, embedding FROM kb_chunks WHERE embedding IS NOT NULL AND id IN (${placeholders(ids.length)})`,
        )
        .all(...ids) as Array<{ id: string; embedding: Buffer }>;
      for (const r of rows) out.set(r.id, bytesToVector(r.embedding));
    }
    return out;
  }

  /** The nearest chunks by sqlite-vec's KNN over the bases' vec0 partitions; score = cosine similarity. */
  async searchVector(baseIds: string[], vector: number[], limit: number): Promise<ChunkHit[]> {
    if (baseIds.length === 0 || vector.length === 0 || limit <= 0) return [];
    const near = this.vectors.nearest(baseIds, vector, limit);
    if (near.length === 0) return [];
    const rows = this.db
      .prepare(`${HIT_SELECT} WHERE c.rowid IN (${placeholders(near.length)})`)
      .all(...near.map((n) => n.rowid)) as Row[];
    const byRowid = new Map(rows.map((r) => [BigInt(r.rowid), r]));
    return near.flatMap((n) => {
      const r = byRowid.get(BigInt(n.rowid));
      return r ? [this.hit(r, 1 - n.distance)] : [];
    });
  }
}
