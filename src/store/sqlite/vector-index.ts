import type Database from "better-sqlite3";
import * as sqliteVec from "sqlite-vec";
import { NotConfiguredError } from "../../ir/errors.js";
import { bytesToVector } from "../knowledge.js";

type Row = Record<string, any>;

// sqlite-vec's vec0 columns have one fixed dimension (at most 8192), so each dimension gets its own table.
const MAX_DIM = 8192;
const table = (dim: number) => `kb_vec_${dim}`;

/**
 * Chunk vectors in sqlite-vec's vec0 virtual tables (rowid = kb_chunks.rowid), the base id a partition key so a
 * query reads only its bases' vectors, cosine distance computed in C (SIMD) over vec0's packed chunks rather than
 * row by row in JavaScript. vec0 is exact k-nearest-neighbour search: its recall is that of a full cosine ranking.
 */
export class SqliteVectorIndex {
  /** Why the extension could not be loaded (another platform without its prebuilt binary); vectors then refuse. */
  private readonly unavailable?: string;
  private readonly dims = new Set<number>();
  private readonly statements = new Map<string, Database.Statement>();

  constructor(private readonly db: Database.Database) {
    try {
      sqliteVec.load(db);
      db.exec("CREATE TABLE IF NOT EXISTS kb_vec_dims (dim INTEGER PRIMARY KEY)");
      for (const r of db.prepare("SELECT dim FROM kb_vec_dims").all() as Row[]) this.dims.add(r.dim);
    } catch (e) {
      this.unavailable = (e as Error).message;
    }
  }

  /** Prepared once per connection (preparing a vec0 statement per chunk would dominate ingest). */
  private statement(sql: string): Database.Statement {
    let st = this.statements.get(sql);
    if (!st) {
      st = this.db.prepare(sql);
      this.statements.set(sql, st);
    }
    return st;
  }

  private check(): void {
    if (this.unavailable !== undefined)
      throw new NotConfiguredError(
        "knowledge.vector_index_unavailable",
        `the SQLite vector index (sqlite-vec) could not be loaded on ${process.platform}-${process.arch}: ${this.unavailable}; reinstall with npm ci on a platform sqlite-vec ships a binary for (linux, macOS, Windows on x64/arm64), or use a PostgreSQL database`,
        { platform: `${process.platform}-${process.arch}` },
      );
  }

  private ensure(dim: number): void {
    if (this.dims.has(dim)) return;
    if (!Number.isInteger(dim) || dim < 1 || dim > MAX_DIM)
      throw new NotConfiguredError(
        "knowledge.vector_dimension",
        `embeddings of ${dim} dimensions cannot be indexed (1 to ${MAX_DIM})`,
        { dim },
      );
    this.db.exec(
      `CREATE VIRTUAL TABLE IF NOT EXISTS ${table(dim)} USING vec0(base_id TEXT PARTITION KEY, embedding float[${dim}] distance_metric=cosine)`,
    );
    this.db.prepare("INSERT OR IGNORE INTO kb_vec_dims (dim) VALUES (?)").run(dim);
    this.dims.add(dim);
  }

  /** Index one chunk's vector (inside the caller's transaction). */
  add(rowid: number | bigint, baseId: string, vector: ArrayLike<number>): void {
    this.check();
    this.ensure(vector.length);
    // vec0 accepts only integer rowids; better-sqlite3 binds a BigInt as one.
    this.statement(`INSERT INTO ${table(vector.length)} (rowid, base_id, embedding) VALUES (?, ?, ?)`).run(
      BigInt(rowid),
      baseId,
      Buffer.from(Float32Array.from(vector).buffer),
    );
  }

  remove(rows: Array<{ rowid: number | bigint; vec_dim: number }>): void {
    if (rows.length === 0) return;
    this.check();
    for (const r of rows)
      if (this.dims.has(r.vec_dim))
        this.statement(`DELETE FROM ${table(r.vec_dim)} WHERE rowid = ?`).run(BigInt(r.rowid));
  }

  /** Index the embedded chunks stored before the index existed (a database from an earlier release). */
  backfill(): void {
    if (this.unavailable !== undefined) return;
    const rows = this.db
      .prepare("SELECT rowid, base_id, embedding FROM kb_chunks WHERE embedding IS NOT NULL AND vec_dim IS NULL")
      .all() as Row[];
    if (rows.length === 0) return;
    const mark = this.db.prepare("UPDATE kb_chunks SET vec_dim = ? WHERE rowid = ?");
    this.db.transaction(() => {
      for (const r of rows) {
        const v = bytesToVector(r.embedding);
        if (v.length === 0) continue;
        this.add(r.rowid, r.base_id, v);
        mark.run(v.length, r.rowid);
      }
    })();
  }

  /** The `limit` nearest indexed chunks of the bases (cosine distance, smallest first). */
  nearest(baseIds: string[], vector: number[], limit: number): Array<{ rowid: number; distance: number }> {
    this.check();
    if (vector.every((x) => x === 0)) return [];
    // Another connection may have indexed the first vectors of this dimension.
    if (!this.dims.has(vector.length) && this.db.prepare("SELECT 1 FROM kb_vec_dims WHERE dim = ?").get(vector.length))
      this.dims.add(vector.length);
    if (!this.dims.has(vector.length)) return [];
    const q = Buffer.from(Float32Array.from(vector).buffer);
    const knn = this.statement(
      `SELECT rowid, distance FROM ${table(vector.length)} WHERE embedding MATCH ? AND k = ? AND base_id = ? ORDER BY distance`,
    );
    // One KNN per base (a partition is chosen by equality), merged.
    const all = [...new Set(baseIds)].flatMap(
      (b) => knn.all(q, limit, b) as Array<{ rowid: number; distance: number }>,
    );
    return all.sort((a, b) => a.distance - b.distance).slice(0, limit);
  }
}
