/**
 * pgvector, when the PostgreSQL server has it: chunk vectors in a `vector` column with one HNSW index (cosine)
 * per embedding dimension, so a vector query is an index scan in C instead of LSH buckets ranked in JavaScript.
 *
 * Detected when the store opens: the extension is used when it is already created in the database, or when
 * `pg_available_extensions` lists it and `CREATE EXTENSION IF NOT EXISTS vector` succeeds (it needs a role
 * allowed to create it). Otherwise the LSH columns of migration 21 stay the only vector index, as before.
 *
 * The column and indexes are made here rather than in a numbered migration: the `vector` type exists only once
 * the extension does, which may be long after the schema was migrated (pgvector installed later). Both are
 * idempotent (`IF NOT EXISTS`) and made under an advisory lock, so servers and workers opening together agree.
 */
import { bytesToVector } from "../knowledge.js";
import type { PgDatabase, Query } from "./database.js";

/** Where the extension lives (its schema qualifies the type, operator and operator class) and its version. */
export interface PgVector {
  schema: string;
  version: string;
}

/** Why the LSH path runs: what the server lacks and how a user gets the HNSW path. */
export type VectorIndexChoice = { kind: "pgvector"; pg: PgVector } | { kind: "lsh"; reason: string };

// Shares the migration lock's first key (any constant works; it only has to be the same for every Weft process).
const LOCK = 0x77656674;
const LOCK_COLUMN = 0x766563; // "vec"
// Rows filled per statement when vectors stored before pgvector existed are copied into the vector column.
const BACKFILL_BATCH = 2000;

async function installed(q: Query): Promise<PgVector | undefined> {
  const [row] = await q<{ schema: string; version: string }>(
    `SELECT n.nspname AS schema, e.extversion AS version FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
     WHERE e.extname = 'vector'`,
  );
  return row;
}

/**
 * Find or create the extension and make the vector column. `mode: "lsh"` (the URL's `vector_index=lsh`)
 * keeps the LSH path even where pgvector exists.
 */
export async function chooseVectorIndex(db: PgDatabase, mode: "auto" | "lsh"): Promise<VectorIndexChoice> {
  if (mode === "lsh") return { kind: "lsh", reason: "vector_index=lsh in the database URL" };
  let pg = await installed(db.query);
  if (!pg) {
    const [available] = await db.query<{ version: string }>(
      "SELECT default_version AS version FROM pg_available_extensions WHERE name = 'vector'",
    );
    if (!available) return { kind: "lsh", reason: "pgvector not installed on the PostgreSQL server" };
    try {
      await db.tx(async (q) => {
        await q("SELECT pg_advisory_xact_lock($1, $2)", [LOCK, LOCK_COLUMN]);
        await q("CREATE EXTENSION IF NOT EXISTS vector");
      });
    } catch (e) {
      return {
        kind: "lsh",
        reason: `pgvector is installed but could not be created in the database (${(e as Error).message}); run CREATE EXTENSION vector as a role allowed to`,
      };
    }
    pg = await installed(db.query);
    if (!pg) return { kind: "lsh", reason: "pgvector was created but is not listed in pg_extension" };
  }
  // ALTER TABLE locks the table out even when the column exists: look first, so opening never waits on searches.
  if (!(await hasColumn(db.query))) {
    await db.tx(async (q) => {
      await q("SELECT pg_advisory_xact_lock($1, $2)", [LOCK, LOCK_COLUMN]);
      await q(`ALTER TABLE kb_chunks ADD COLUMN IF NOT EXISTS embedding_v ${pg.schema}.vector`);
    });
  }
  await backfill(db, pg);
  return { kind: "pgvector", pg };
}

async function hasColumn(q: Query): Promise<boolean> {
  const rows = await q(
    "SELECT 1 FROM pg_attribute WHERE attrelid = 'kb_chunks'::regclass AND attname = 'embedding_v' AND NOT attisdropped",
  );
  return rows.length > 0;
}

/** Copy vectors stored while the LSH path ran (float32 bytes) into the vector column, a batch at a time. */
async function backfill(db: PgDatabase, pg: PgVector): Promise<void> {
  for (;;) {
    const rows = await db.query<{ seq: string; embedding: Buffer }>(
      `SELECT seq, embedding FROM kb_chunks WHERE embedding IS NOT NULL AND embedding_v IS NULL ORDER BY seq LIMIT ${BACKFILL_BATCH}`,
    );
    if (rows.length === 0) return;
    const dims = new Set<number>();
    const texts = rows.map((r) => {
      const v = bytesToVector(r.embedding);
      dims.add(v.length);
      return vectorText(Array.from(v));
    });
    for (const d of dims) await ensureHnswIndex(db, pg, d);
    await db.query(
      `UPDATE kb_chunks c SET embedding_v = u.v::${pg.schema}.vector FROM unnest($1::bigint[], $2::text[]) AS u(seq, v) WHERE c.seq = u.seq`,
      [rows.map((r) => r.seq), texts],
    );
  }
}

/** pgvector's text form of a vector: `[1,2,3]`. */
export function vectorText(v: ArrayLike<number>): string {
  return `[${Array.from(v).join(",")}]`;
}

/**
 * One HNSW index per dimension (an expression index over the rows of that dimension): HNSW needs a fixed
 * dimension, and one store holds bases embedded by different models.
 */
const made = new WeakMap<PgDatabase, Set<number>>();
export async function ensureHnswIndex(db: PgDatabase, pg: PgVector, dim: number): Promise<void> {
  const have = made.get(db) ?? new Set<number>();
  made.set(db, have);
  if (have.has(dim)) return;
  if (!Number.isInteger(dim) || dim < 1 || dim > 2000) return; // HNSW indexes up to 2,000 dimensions; above, the query scans exactly.
  await db.tx(async (q) => {
    await q("SELECT pg_advisory_xact_lock($1, $2)", [LOCK, LOCK_COLUMN]);
    await q(
      `CREATE INDEX IF NOT EXISTS kb_chunks_hnsw_${dim} ON kb_chunks
       USING hnsw ((embedding_v::${pg.schema}.vector(${dim})) ${pg.schema}.vector_cosine_ops) WHERE ${pg.schema}.vector_dims(embedding_v) = ${dim}`,
    );
  });
  have.add(dim);
}

/** pgvector 0.8 scans an HNSW index on until enough rows pass the query's filter (the base); older ones stop at ef_search. */
export function hasIterativeScan(pg: PgVector): boolean {
  const [major, minor] = pg.version.split(".").map(Number);
  return (major ?? 0) > 0 || (minor ?? 0) >= 8;
}
