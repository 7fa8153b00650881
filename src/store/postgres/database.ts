import pg from "pg";
import { pgStoreError } from "./errors.js";
import type { PostgresSpec } from "./spec.js";

/** Run one statement; rows come back as plain objects. `name` prepares it once per connection (hot paths). */
export type Query = <R = Record<string, unknown>>(sql: string, params?: unknown[], name?: string) => Promise<R[]>;

/** A bounded pool on one database, every failure a `StoreError` naming it; what every PostgreSQL store shares. */
export interface PgDatabase {
  readonly label: string;
  readonly schema: string;
  query: Query;
  /** Run `f` in one transaction: committed when it resolves, rolled back when it throws. */
  tx<T>(f: (q: Query) => Promise<T>): Promise<T>;
  /** Ends the pool; waits at most `timeoutMs` for connections in use, then drops them. */
  close(timeoutMs?: number): Promise<void>;
}

const INT8 = 20;
const JSON_OID = 114;
// Epoch milliseconds fit a double exactly, so BIGINT columns come back as numbers; json columns come back
// as text, so a stored JSON `null` (a value) stays distinct from SQL NULL (no value) when the store parses it.
const types = {
  getTypeParser: (oid: number, format?: "text" | "binary") => {
    if (oid === INT8) return (v: string) => Number(v);
    if (oid === JSON_OID) return (v: string) => v;
    return pg.types.getTypeParser(oid, format as "text");
  },
};

/** What one connection may wait: a dead server or network must turn into an error, never a hang. */
const CONNECT_TIMEOUT_MS = 10_000;
const QUERY_TIMEOUT_MS = 60_000;

export function createPool(spec: PostgresSpec): pg.Pool {
  const pool = new pg.Pool({
    connectionString: spec.connectionString,
    max: spec.poolMax,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    query_timeout: QUERY_TIMEOUT_MS,
    idleTimeoutMillis: 10_000,
    keepAlive: true,
    types,
    options: `-c search_path=${spec.schema}`,
    application_name: "weft",
  });
  // An idle connection the server drops (restart, shutdown) is reported here; unheard, it would end the
  // process. The next query fails with a typed error instead, which is where the caller can act on it.
  pool.on("error", () => {});
  return pool;
}

export function pgDatabase(spec: PostgresSpec, pool: pg.Pool): PgDatabase {
  const typed = (e: unknown) => pgStoreError(spec.label, e);
  const on =
    (client: pg.Pool | pg.PoolClient): Query =>
    async <R>(text: string, values: unknown[] = [], name?: string) => {
      try {
        return (await client.query({ text, values, name })).rows as R[];
      } catch (e) {
        throw typed(e);
      }
    };
  let closing: Promise<void> | undefined;
  return {
    label: spec.label,
    schema: spec.schema,
    query: on(pool),
    async tx<T>(f: (q: Query) => Promise<T>): Promise<T> {
      let client: pg.PoolClient;
      try {
        client = await pool.connect();
      } catch (e) {
        throw typed(e);
      }
      let broken: unknown;
      try {
        const q = on(client);
        await q("BEGIN");
        const out = await f(q);
        await q("COMMIT");
        return out;
      } catch (e) {
        await client.query("ROLLBACK").catch((rollback: unknown) => (broken = rollback));
        throw e;
      } finally {
        // A connection whose rollback failed is in an unknown state: destroy it rather than reuse it.
        client.release(broken instanceof Error ? broken : undefined);
      }
    },
    close(timeoutMs = 5_000): Promise<void> {
      closing ??= endPool(pool, timeoutMs);
      return closing;
    },
  };
}

/**
 * `pool.end()` waits for every connection in use to be released; a query stuck on a dead network would hold
 * it until the query timeout. Closing gives up waiting after `timeoutMs`, so a stopping process stops promptly
 * (its sockets go with it).
 */
async function endPool(pool: pg.Pool, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((res) => {
    timer = setTimeout(res, timeoutMs);
    timer.unref();
  });
  await Promise.race([pool.end().catch(() => {}), late]);
  clearTimeout(timer);
}
