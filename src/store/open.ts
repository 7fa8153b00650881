import { StoreSpecError } from "./errors.js";
import { type PostgresSpec, parsePostgresSpec } from "./postgres/spec.js";
import type { SqliteOptions } from "./sqlite/database.js";
import type { Stores } from "./stores.js";

export type { StoreKind, Stores } from "./stores.js";

export type StoreSpec = { kind: "memory" } | { kind: "sqlite"; path: string } | ({ kind: "postgres" } & PostgresSpec);

export interface OpenStoresOptions {
  /** SQLite durability; see `SqliteOptions`. Other backends ignore it. */
  synchronous?: SqliteOptions["synchronous"];
}

const SUPPORTED =
  "a SQLite file path (weft.db, ./runs.db, sqlite:PATH), a PostgreSQL URL (postgres://USER@HOST:PORT/DB) or :memory:";

/**
 * Read a database specifier: `:memory:` (in-process stores, gone when the process ends), `sqlite:PATH`,
 * a plain path to a SQLite file, or a `postgres://` URL. Any other URL scheme is refused, never taken for a
 * file name.
 */
export function parseStoreSpec(spec: string): StoreSpec {
  const s = spec.trim();
  if (s === "") throw new StoreSpecError("store.empty_spec", `the database specifier is empty; use ${SUPPORTED}`);
  if (s === ":memory:" || s === "memory:") return { kind: "memory" };
  if (s.startsWith("sqlite:")) {
    const path = s.slice("sqlite:".length).replace(/^\/\//, "");
    if (path === "") throw new StoreSpecError("store.empty_spec", `"${spec}" names no SQLite file; use sqlite:PATH`);
    return { kind: "sqlite", path };
  }
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(s)?.[1];
  if (scheme && /^postgres(ql)?$/i.test(scheme)) return { kind: "postgres", ...parsePostgresSpec(s) };
  if (scheme)
    throw new StoreSpecError(
      "store.unknown_spec",
      `unknown database specifier "${spec}" (scheme "${scheme}:"); use ${SUPPORTED}`,
      { spec, scheme },
    );
  return { kind: "sqlite", path: s };
}

/** Open every store of one database: runs, apps, conversations, forms, the service API's state and knowledge bases. */
export async function openStores(spec: string, o: OpenStoresOptions = {}): Promise<Stores> {
  const parsed = parseStoreSpec(spec);
  // Each backend's stores load on demand: a run on SQLite loads none of the memory stores, `:memory:` none of
  // SQLite's but the knowledge store, and neither loads the PostgreSQL driver (start-up of every command).
  if (parsed.kind === "memory") return (await import("./memory/open.js")).openMemoryStores();
  if (parsed.kind === "postgres") {
    // Loaded on demand: commands on SQLite never load the PostgreSQL driver.
    const { openPostgresStores } = await import("./postgres/open.js");
    return openPostgresStores(parsed);
  }
  return (await import("./sqlite/open.js")).openSqliteStores(parsed, o);
}
