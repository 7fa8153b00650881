import type { AppStore } from "./apps.js";
import { MemoryAppStore } from "./memory/apps.js";
import { SqliteAppStore } from "./sqlite/apps.js";
import { openSqlite } from "./sqlite/database.js";
import type { Stores } from "./stores.js";

/**
 * An empty app store of the same code as a `kind` server's, holding nothing of the user's: SQLite in memory for a
 * SQLite server (so its statements and row mapping are what runs), the memory store otherwise (a scratch
 * PostgreSQL database is not something to create). The server's warm-up saves drafts into it.
 */
export function scratchAppStore(kind: Stores["kind"]): { apps: AppStore; close(): void } {
  if (kind !== "sqlite") return { apps: new MemoryAppStore(), close: () => {} };
  const db = openSqlite(":memory:");
  return { apps: new SqliteAppStore(db), close: () => db.close() };
}
