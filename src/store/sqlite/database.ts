import Database from "better-sqlite3";
import { StoreOpenError } from "../errors.js";
import { guardDatabase, storeError } from "./errors.js";

export interface SqliteOptions {
  /**
   * "full" syncs every commit to disk (a `kill -9` or power loss after `commitNode` resolves loses nothing);
   * "normal" (WAL) still survives a killed process but may lose the last commits on power loss, for far
   * higher throughput.
   */
  synchronous?: "full" | "normal";
}

/** One connection shared by the run, app and session stores, so one file holds all state. */
export function openSqlite(path: string, o: SqliteOptions = {}): Database.Database {
  let db: Database.Database | undefined;
  try {
    db = new Database(path);
    db.pragma("journal_mode = WAL");
    db.pragma(`synchronous = ${o.synchronous === "normal" ? "NORMAL" : "FULL"}`);
    db.pragma("busy_timeout = 5000");
  } catch (e) {
    db?.close();
    // SQLite's own reasons (not a database, read-only, corrupt) keep their typed code.
    const typed = storeError(path, e, StoreOpenError);
    if (typed instanceof StoreOpenError) throw typed;
    throw new StoreOpenError("store.open_failed", `cannot open the SQLite database ${path}: ${(e as Error).message}`, {
      path,
    });
  }
  // From here every failure (full, read-only, locked, corrupt pages) is a StoreError naming the file.
  return guardDatabase(db, path);
}
