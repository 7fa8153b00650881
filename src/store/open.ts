import Database from "better-sqlite3";
import type { AppStore } from "./apps.js";
import type { KnowledgeStore } from "./knowledge.js";
import type { ConversationStore } from "./conversations.js";
import { StoreOpenError, StoreSpecError } from "./errors.js";
import { MemoryAppStore } from "./memory/apps.js";
import { MemoryConversationStore } from "./memory/conversations.js";
import { MemoryRunStore } from "./memory/runs.js";
import type { RunStore } from "./runs.js";
import { SqliteAppStore } from "./sqlite/apps.js";
import { SqliteKnowledgeStore } from "./sqlite/knowledge.js";
import { SqliteConversationStore } from "./sqlite/conversations.js";
import { openSqlite, type SqliteOptions } from "./sqlite/database.js";
import { SqliteRunStore } from "./sqlite/runs.js";

/** Every store of one database: what commands, the server and workers open from `--db` / config `db`. */
export interface Stores {
  runs: RunStore;
  apps: AppStore;
  /** Knowledge bases (documents, chunks, full-text index, embeddings). */
  knowledge: KnowledgeStore;
  /** Chat apps' conversations: the variables carried from one turn to the next. */
  conversations: ConversationStore;
  /** Which backend the specifier named. */
  readonly kind: StoreKind;
  /** Closes the database; the stores must not be used afterwards. */
  close(): Promise<void>;
}

export type StoreKind = "memory" | "sqlite";

export type StoreSpec = { kind: "memory" } | { kind: "sqlite"; path: string };

export interface OpenStoresOptions {
  /** SQLite durability; see `SqliteOptions`. Other backends ignore it. */
  synchronous?: SqliteOptions["synchronous"];
}

const SUPPORTED = "a SQLite file path (weft.db, ./runs.db, sqlite:PATH) or :memory:";

/**
 * Read a database specifier: `:memory:` (in-process stores, gone when the process ends), `sqlite:PATH`,
 * or a plain path to a SQLite file. Anything else with a URL scheme is refused, never taken for a file name.
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
  if (scheme) {
    const postgres = /^postgres(ql)?$/i.test(scheme);
    throw new StoreSpecError(
      postgres ? "store.unsupported" : "store.unknown_spec",
      postgres
        ? `PostgreSQL databases (${scheme}://) are not supported by this version of Weft; use ${SUPPORTED}`
        : `unknown database specifier "${spec}" (scheme "${scheme}:"); use ${SUPPORTED}`,
      { spec, scheme },
    );
  }
  return { kind: "sqlite", path: s };
}

/** Open the run, app, conversation and knowledge stores of one database. */
export async function openStores(spec: string, o: OpenStoresOptions = {}): Promise<Stores> {
  const parsed = parseStoreSpec(spec);
  if (parsed.kind === "memory") {
    // Full-text search is SQLite's FTS5 even in memory: an in-process database that ends with the stores.
    const kb = new Database(":memory:");
    return {
      kind: "memory",
      runs: new MemoryRunStore(),
      apps: new MemoryAppStore(),
      conversations: new MemoryConversationStore(),
      knowledge: new SqliteKnowledgeStore(kb),
      close: async () => {
        if (kb.open) kb.close();
      },
    };
  }
  const db = openSqlite(parsed.path, o);
  try {
    return {
      kind: "sqlite",
      runs: new SqliteRunStore(db),
      apps: new SqliteAppStore(db),
      knowledge: new SqliteKnowledgeStore(db),
      conversations: new SqliteConversationStore(db),
      close: async () => {
        if (db.open) db.close();
      },
    };
  } catch (e) {
    // A database that opened but holds someone else's tables fails in the schema statements.
    db.close();
    throw new StoreOpenError(
      "store.open_failed",
      `cannot use ${parsed.path} as a Weft database: ${(e as Error).message}`,
      {
        path: parsed.path,
      },
    );
  }
}
