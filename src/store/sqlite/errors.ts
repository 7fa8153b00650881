import type Database from "better-sqlite3";
import { StoreError } from "../errors.js";

/** SQLite's primary result codes, as better-sqlite3 names them, and what each means for the user. */
const REASONS: Array<[prefix: string, code: string, reason: string]> = [
  ["SQLITE_FULL", "store.full", "the disk (or the database's size limit) is full"],
  [
    "SQLITE_READONLY",
    "store.read_only",
    "the database is read-only: check the permissions of the file and its directory",
  ],
  ["SQLITE_PERM", "store.read_only", "the database may not be written (permission denied)"],
  ["SQLITE_CORRUPT", "store.corrupt", "the database file is corrupt"],
  ["SQLITE_NOTADB", "store.corrupt", "the file is not a SQLite database"],
  ["SQLITE_CANTOPEN", "store.cannot_open", "the file cannot be opened (a missing directory or no permission)"],
  ["SQLITE_BUSY", "store.busy", "the database is locked by another process"],
  ["SQLITE_LOCKED", "store.busy", "the database is locked"],
  ["SQLITE_IOERR", "store.io", "reading or writing the file failed (disk I/O error)"],
];

function sqliteCode(e: unknown): string | undefined {
  if (!(e instanceof Error) || e.name !== "SqliteError") return undefined;
  const code = (e as Error & { code?: unknown }).code;
  return typeof code === "string" ? code : undefined;
}

/** The typed error naming the file for a better-sqlite3 error; anything else is returned unchanged. */
export function storeError(path: string, e: unknown, Kind: typeof StoreError = StoreError): unknown {
  const code = sqliteCode(e);
  if (!code || e instanceof StoreError) return e;
  const hit = REASONS.find(([prefix]) => code === prefix || code.startsWith(`${prefix}_`));
  const [weftCode, reason] = hit ? [hit[1], hit[2]] : ["store.failed", "the database operation failed"];
  return new Kind(weftCode, `${path}: ${reason} (${code}: ${(e as Error).message})`, {
    path,
    sqliteCode: code,
  });
}

function guarded<A extends unknown[], R>(path: string, f: (...a: A) => R): (...a: A) => R {
  return (...a: A) => {
    try {
      return f(...a);
    } catch (e) {
      throw storeError(path, e);
    }
  };
}

/** Prepared statements kept per connection (the stores prepare many statements per call: SQLite parses each). */
const STATEMENT_CACHE = 256;

/**
 * Make every failure of `db` a StoreError naming `path`: statements prepared from it, `exec`,
 * `pragma` and transactions. One place, so no store method has to remember.
 *
 * `prepare` also keeps the statements it made, by SQL text (the most recent 256): the stores prepare statements
 * inside their methods, and parsing them again on every call was a twelfth of a /v1 request's CPU. A kept
 * statement is handed out again only when no query on it is under way, and with its result shape reset (a caller
 * may have turned on pluck, expand or raw).
 */
export function guardDatabase(db: Database.Database, path: string): Database.Database {
  const prepare = db.prepare.bind(db);
  const cache = new Map<string, Database.Statement>();
  const fresh = (sql: string) => {
    const stmt = prepare(sql);
    for (const m of ["run", "get", "all"] as const) {
      const f = (stmt[m] as (...a: unknown[]) => unknown).bind(stmt);
      (stmt as unknown as Record<string, unknown>)[m] = guarded(path, f);
    }
    return stmt;
  };
  db.prepare = guarded(path, (sql: string) => {
    const kept = cache.get(sql);
    if (kept && !kept.busy) {
      // Most recently used last, so the oldest is the first one dropped.
      cache.delete(sql);
      cache.set(sql, kept);
      if (kept.reader) kept.pluck(false).expand(false).raw(false);
      return kept;
    }
    const stmt = fresh(sql);
    if (!kept) {
      cache.set(sql, stmt);
      if (cache.size > STATEMENT_CACHE) cache.delete(cache.keys().next().value!);
    }
    return stmt;
  }) as typeof db.prepare;
  db.exec = guarded(path, db.exec.bind(db)) as typeof db.exec;
  db.pragma = guarded(path, db.pragma.bind(db)) as typeof db.pragma;
  const transaction = db.transaction.bind(db);
  db.transaction = ((fn: (...a: unknown[]) => unknown) => {
    const tx = transaction(fn);
    return Object.assign(guarded(path, tx), tx);
  }) as typeof db.transaction;
  return db;
}
