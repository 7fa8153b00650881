import { WeftError } from "../../ir/errors.js";
import { newId } from "../../util/ids.js";
import { ChunkingSchema } from "../chunking.js";
import {
  bytesToVector,
  type ChunkHit,
  type ChunkInput,
  checkParents,
  cosine,
  type DocumentInput,
  indexWords,
  type KnowledgeBaseInfo,
  type KnowledgeBaseRecord,
  type KnowledgeDocumentRecord,
  type KnowledgeStore,
  segmentForIndex,
  vectorToBytes,
} from "../knowledge.js";
import { LSH_TABLES, lshBuckets, probes } from "../vector-lsh.js";
import type { PgDatabase, Query } from "./database.js";
import { ensureHnswIndex, hasIterativeScan, type PgVector, type VectorIndexChoice, vectorText } from "./pgvector.js";

type Row = Record<string, any>;

// Chunks are inserted this many at a time (one statement of arrays): large documents stay a few round trips.
const INSERT_BATCH = 500;

const HIT_COLUMNS = `c.id, c.base_id, c.document_id, c.position, c.content, d.name AS doc_name, d.metadata AS doc_metadata,
  c.parent_id, p.position AS parent_position, p.content AS parent_content`;
// The parent of a child chunk (parent-child chunking), joined to every hit.
const PARENT_JOIN = `LEFT JOIN kb_parents p ON p.id = c.parent_id`;

/**
 * Knowledge bases on PostgreSQL (migration 21). Full text: each chunk's segmented words as a tsvector under
 * the base's text-search configuration (chosen at creation from `text_search=` of the database URL), GIN
 * indexed, ranked by ts_rank. Vectors: with pgvector (./pgvector.ts), a vector column under an HNSW index per
 * dimension; without it, float32 bytes with their LSH buckets (src/store/vector-lsh.ts), each bucket column
 * B-tree indexed, so a vector query reads only the chunks in the query's buckets. The bytes and buckets are
 * written either way, so a database keeps working on a server without the extension.
 */
export class PostgresKnowledgeStore implements KnowledgeStore {
  constructor(
    private readonly db: PgDatabase,
    private readonly textSearch = "english",
    /** Which vector index searches run through (chosen when the stores opened). */
    readonly vectorIndex: VectorIndexChoice = { kind: "lsh", reason: "no vector index was chosen at open" },
  ) {}

  private get pgvector(): PgVector | undefined {
    return this.vectorIndex.kind === "pgvector" ? this.vectorIndex.pg : undefined;
  }

  private async counts(q: Query, baseIds: string[]): Promise<Map<string, { d: number; c: number }>> {
    const rows = await q<{ id: string; d: number; c: number }>(
      `SELECT b.id, (SELECT COUNT(*) FROM kb_documents WHERE base_id = b.id)::int AS d,
              (SELECT COUNT(*) FROM kb_chunks WHERE base_id = b.id)::int AS c
       FROM kb_bases b WHERE b.id = ANY($1)`,
      [baseIds],
    );
    return new Map(rows.map((r) => [r.id, r]));
  }

  private async infos(where: string, args: unknown[]): Promise<KnowledgeBaseInfo[]> {
    const rows = await this.db.query<Row>(`SELECT * FROM kb_bases ${where} ORDER BY seq`, args);
    return rows.map((r) => ({
      id: r.id,
      name: JSON.parse(r.name),
      description: JSON.parse(r.description),
      chunking: ChunkingSchema.parse(JSON.parse(r.chunking)),
      embeddingModel: r.embedding_model === null ? null : JSON.parse(r.embedding_model),
      createdAt: r.created_at,
    }));
  }

  private async bases(where: string, args: unknown[]): Promise<KnowledgeBaseRecord[]> {
    const infos = await this.infos(where, args);
    const counts = await this.counts(
      this.db.query,
      infos.map((r) => r.id),
    );
    return infos.map((b) => ({ ...b, documents: counts.get(b.id)?.d ?? 0, chunks: counts.get(b.id)?.c ?? 0 }));
  }

  describeBases(ids: string[]): Promise<KnowledgeBaseInfo[]> {
    return ids.length === 0 ? Promise.resolve([]) : this.infos("WHERE id = ANY($1)", [ids]);
  }

  async createBase(b: Parameters<KnowledgeStore["createBase"]>[0]): Promise<KnowledgeBaseRecord> {
    const id = b.id ?? newId();
    const config = await this.checkedTextSearch();
    const rows = await this.db.query(
      `INSERT INTO kb_bases (id, name, description, chunking, embedding_model, ts_config, created_at)
       VALUES ($1,$2,$3,$4,$5,$6,$7) ON CONFLICT (id) DO NOTHING RETURNING id`,
      [
        id,
        JSON.stringify(b.name),
        JSON.stringify(b.description ?? ""),
        JSON.stringify(b.chunking),
        b.embeddingModel ? JSON.stringify(b.embeddingModel) : null,
        config,
        Date.now(),
      ],
    );
    if (rows.length === 0) throw new WeftError("kb.exists", `a knowledge base with id ${id} already exists`, { id });
    return (await this.getBase(id))!;
  }

  /** The configured text-search configuration, checked against the server's once (a typo is a typed error). */
  private checked?: Promise<string>;
  private checkedTextSearch(): Promise<string> {
    const [schema, name] = this.textSearch.includes(".") ? this.textSearch.split(".") : [null, this.textSearch];
    this.checked ??= this.db
      .query<{ ok: boolean }>(
        `SELECT EXISTS (SELECT 1 FROM pg_ts_config c JOIN pg_namespace n ON n.oid = c.cfgnamespace
         WHERE c.cfgname = $1 AND ($2::text IS NULL OR n.nspname = $2)) AS ok`,
        [name, schema],
      )
      .then(([r]) => {
        if (!r?.ok)
          throw new WeftError(
            "knowledge.text_search_config",
            `${this.db.label}: PostgreSQL has no text-search configuration "${this.textSearch}" (see \\dF in psql); name one with text_search=NAME in the database URL`,
            { config: this.textSearch },
          );
        return this.textSearch;
      });
    this.checked.catch(() => (this.checked = undefined));
    return this.checked;
  }

  async getBase(id: string): Promise<KnowledgeBaseRecord | undefined> {
    return (await this.bases("WHERE id = $1", [id]))[0];
  }

  listBases(): Promise<KnowledgeBaseRecord[]> {
    return this.bases("", []);
  }

  async deleteBase(id: string): Promise<boolean> {
    return this.db.tx(async (q) => {
      await q("DELETE FROM kb_chunks WHERE base_id = $1", [id]);
      return (await q("DELETE FROM kb_bases WHERE id = $1 RETURNING id", [id])).length > 0;
    });
  }

  async addDocument(baseId: string, doc: DocumentInput, chunks: ChunkInput[]): Promise<KnowledgeDocumentRecord> {
    checkParents(doc, chunks);
    const id = newId();
    const pg = this.pgvector;
    if (pg)
      for (const dim of new Set(chunks.flatMap((c) => (c.embedding?.length ? [c.embedding.length] : []))))
        await ensureHnswIndex(this.db, pg, dim);
    await this.db.tx(async (q) => {
      const [base] = await q<{ ts_config: string }>("SELECT ts_config FROM kb_bases WHERE id = $1 FOR SHARE", [baseId]);
      if (!base) throw new WeftError("kb.not_found", `no knowledge base with id ${baseId}`, { id: baseId });
      await q(
        "INSERT INTO kb_documents (id, base_id, name, mime_type, size, metadata, created_at) VALUES ($1,$2,$3,$4,$5,$6,$7)",
        [
          id,
          baseId,
          JSON.stringify(doc.name),
          JSON.stringify(doc.mimeType),
          doc.size,
          JSON.stringify(doc.metadata ?? {}),
          Date.now(),
        ],
      );
      const parents = doc.parents ?? [];
      if (parents.length > 0)
        await q(
          `INSERT INTO kb_parents (id, base_id, document_id, position, content)
           SELECT u.id, $1, $2, u.position, u.content FROM unnest($3::text[], $4::int[], $5::json[]) AS u(id, position, content)`,
          [
            baseId,
            id,
            parents.map((_, i) => `${id}-p${i + 1}`),
            parents.map((_, i) => i + 1),
            parents.map((p) => JSON.stringify(p)),
          ],
        );
      for (let i = 0; i < chunks.length; i += INSERT_BATCH)
        await insertChunks(q, base.ts_config, baseId, id, chunks.slice(i, i + INSERT_BATCH), i, pg);
    });
    return (await this.documents("WHERE d.id = $1", [id]))[0]!;
  }

  private async documents(where: string, args: unknown[]): Promise<KnowledgeDocumentRecord[]> {
    const rows = await this.db.query<Row>(
      `SELECT d.*, (SELECT COUNT(*) FROM kb_chunks c WHERE c.document_id = d.id)::int AS n FROM kb_documents d ${where} ORDER BY d.seq`,
      args,
    );
    return rows.map((r) => ({
      id: r.id,
      baseId: r.base_id,
      name: JSON.parse(r.name),
      mimeType: JSON.parse(r.mime_type),
      size: r.size,
      chunks: r.n,
      metadata: JSON.parse(r.metadata),
      createdAt: r.created_at,
    }));
  }

  listDocuments(baseId: string): Promise<KnowledgeDocumentRecord[]> {
    return this.documents("WHERE d.base_id = $1", [baseId]);
  }

  async deleteDocument(baseId: string, documentId: string): Promise<boolean> {
    const rows = await this.db.query("DELETE FROM kb_documents WHERE id = $1 AND base_id = $2 RETURNING id", [
      documentId,
      baseId,
    ]);
    return rows.length > 0;
  }

  async searchText(baseIds: string[], query: string, limit: number): Promise<ChunkHit[]> {
    // Words are letters and digits only, so joining them with | cannot inject tsquery operators.
    const words = [...new Set(indexWords(query))];
    if (words.length === 0 || baseIds.length === 0) return [];
    const configs = await this.db.query<{ ts_config: string }>(
      "SELECT DISTINCT ts_config FROM kb_bases WHERE id = ANY($1)",
      [baseIds],
    );
    const hits: ChunkHit[] = [];
    // One query per configuration (normally one): the tsquery must be a constant for the GIN index to serve it.
    for (const { ts_config } of configs) {
      const rows = await this.db.query<Row>(
        `WITH q AS (SELECT to_tsquery($1::text::regconfig, $2) AS query)
         SELECT ${HIT_COLUMNS}, ts_rank(c.tsv, q.query) AS rank
         FROM q, kb_chunks c JOIN kb_documents d ON d.id = c.document_id JOIN kb_bases b ON b.id = c.base_id ${PARENT_JOIN}
         WHERE c.tsv @@ q.query AND c.base_id = ANY($3) AND b.ts_config = $1::text
         ORDER BY rank DESC, c.seq LIMIT $4`,
        [ts_config, words.join(" | "), baseIds, limit],
      );
      // ts_rank is ≥ 0, higher is better; rank / (1 + rank) maps it onto [0, 1) like the SQLite store's BM25.
      hits.push(...rows.map((r) => toHit(r, r.rank / (1 + r.rank))));
    }
    return hits.sort((a, b) => b.score - a.score).slice(0, limit);
  }

  /**
   * Candidates from the query's LSH buckets (one bit flip away in every table; two when that finds fewer than
   * `limit`), ranked by exact cosine. Only indexed buckets are read: never every vector of a base.
   */
  async searchVector(baseIds: string[], vector: number[], limit: number): Promise<ChunkHit[]> {
    if (baseIds.length === 0 || vector.length === 0 || limit <= 0) return [];
    const pg = this.pgvector;
    return pg ? this.searchHnsw(pg, baseIds, vector, limit) : this.searchLsh(baseIds, vector, limit);
  }

  /**
   * pgvector: the nearest `limit` chunks of the query's dimension by cosine distance, through that dimension's
   * HNSW index. ef_search (the candidate list) grows with `limit`; on pgvector ≥ 0.8 the scan goes on until
   * `limit` rows of the named bases are found (iterative scan), so a small base in a large table is not starved.
   */
  private async searchHnsw(pg: PgVector, baseIds: string[], vector: number[], limit: number): Promise<ChunkHit[]> {
    const dim = vector.length;
    const v = `${pg.schema}.vector(${dim})`;
    const rows = await this.db.tx(async (q) => {
      await q(`SET LOCAL hnsw.ef_search = ${Math.min(1000, Math.max(100, limit * 4))}`);
      if (hasIterativeScan(pg)) await q("SET LOCAL hnsw.iterative_scan = strict_order");
      return q<Row>(
        `WITH near AS MATERIALIZED (
           SELECT c.seq, c.embedding_v::${v} OPERATOR(${pg.schema}.<=>) $2::${v} AS distance FROM kb_chunks c
           WHERE ${pg.schema}.vector_dims(c.embedding_v) = ${dim} AND c.base_id = ANY($1)
           ORDER BY c.embedding_v::${v} OPERATOR(${pg.schema}.<=>) $2::${v} LIMIT $3)
         SELECT ${HIT_COLUMNS}, near.distance FROM near JOIN kb_chunks c ON c.seq = near.seq
           JOIN kb_documents d ON d.id = c.document_id ${PARENT_JOIN}
         ORDER BY near.distance, c.seq`,
        [baseIds, vectorText(vector), limit],
      );
    });
    return rows.map((r) => toHit(r, 1 - r.distance));
  }

  async chunkVectors(chunkIds: string[]): Promise<Map<string, Float32Array>> {
    if (chunkIds.length === 0) return new Map();
    const rows = await this.db.query<{ id: string; embedding: Buffer }>(
      "SELECT id, embedding FROM kb_chunks WHERE embedding IS NOT NULL AND id = ANY($1)",
      [chunkIds],
    );
    return new Map(rows.map((r) => [r.id, bytesToVector(r.embedding)]));
  }

  private async searchLsh(baseIds: string[], vector: number[], limit: number): Promise<ChunkHit[]> {
    const buckets = lshBuckets(vector);
    let rows: Row[] = [];
    for (const radius of [1, 2]) {
      const where = buckets.map((_, t) => `c.lsh${t} = ANY($${t + 2})`).join(" OR ");
      rows = await this.db.query<Row>(
        `SELECT ${HIT_COLUMNS}, c.embedding FROM kb_chunks c JOIN kb_documents d ON d.id = c.document_id ${PARENT_JOIN}
         WHERE c.base_id = ANY($1) AND (${where})`,
        [baseIds, ...buckets.map((b) => probes(b, radius))],
      );
      if (rows.length >= limit) break;
    }
    return rows
      .map((r) => toHit(r, cosine(vector, bytesToVector(r.embedding))))
      .sort((a, b) => b.score - a.score)
      .slice(0, limit);
  }
}

async function insertChunks(
  q: Query,
  config: string,
  baseId: string,
  docId: string,
  chunks: ChunkInput[],
  offset: number,
  pg?: PgVector,
): Promise<void> {
  const buckets = chunks.map((c) => (c.embedding ? lshBuckets(c.embedding) : undefined));
  const lsh = Array.from({ length: LSH_TABLES }, (_, t) => buckets.map((b) => b?.[t] ?? null));
  // With pgvector the vector also goes into its column (its text form, cast by PostgreSQL).
  const vcol = pg ? ", embedding_v" : "";
  const vval = pg ? `, u.ev::${pg.schema}.vector` : "";
  const vnest = pg ? ", $14::text[]" : "";
  await q(
    `INSERT INTO kb_chunks (id, base_id, document_id, position, content, tsv, embedding, lsh0, lsh1, lsh2, lsh3, parent_id${vcol})
     SELECT u.id, $1, $2, u.position, u.content, to_tsvector($3::text::regconfig, u.words), u.embedding, u.l0, u.l1, u.l2, u.l3, u.parent${vval}
     FROM unnest($4::text[], $5::int[], $6::json[], $7::text[], $8::bytea[], $9::int[], $10::int[], $11::int[], $12::int[], $13::text[]${vnest})
       AS u(id, position, content, words, embedding, l0, l1, l2, l3, parent${pg ? ", ev" : ""})`,
    [
      baseId,
      docId,
      config,
      chunks.map((_, i) => `${docId}-${offset + i + 1}`),
      chunks.map((_, i) => offset + i + 1),
      chunks.map((c) => JSON.stringify(c.content)),
      chunks.map((c) => segmentForIndex(c.content)),
      chunks.map((c) => (c.embedding ? vectorToBytes(c.embedding) : null)),
      ...lsh,
      chunks.map((c) => (c.parent === undefined ? null : `${docId}-p${c.parent + 1}`)),
      ...(pg ? [chunks.map((c) => (c.embedding?.length ? vectorText(c.embedding) : null))] : []),
    ],
  );
}

function toHit(r: Row, score: number): ChunkHit {
  return {
    chunkId: r.id,
    baseId: r.base_id,
    documentId: r.document_id,
    documentName: JSON.parse(r.doc_name),
    position: r.position,
    content: JSON.parse(r.content),
    score,
    metadata: JSON.parse(r.doc_metadata),
    ...(r.parent_id
      ? { parent: { id: r.parent_id, position: r.parent_position, content: JSON.parse(r.parent_content) } }
      : {}),
  };
}
