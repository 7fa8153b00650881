import Database from "better-sqlite3";
import type { AppStore } from "./apps.js";
import { StoreOpenError, StoreSpecError } from "./errors.js";
import { MemoryAppTestStore } from "./memory/app-tests.js";
import { MemoryAppStore } from "./memory/apps.js";
import { MemoryAuditStore } from "./memory/audit.js";
import { MemoryConversationStore } from "./memory/conversations.js";
import { MemoryEnvStore } from "./memory/env.js";
import { MemoryFormStore } from "./memory/forms.js";
import { MemoryIdentityStore } from "./memory/identities.js";
import { MemoryInviteStore } from "./memory/invites.js";
import { MemoryRunLog } from "./memory/runlog.js";
import { MemoryRunStore } from "./memory/runs.js";
import { MemoryScheduleStore } from "./memory/schedules.js";
import { MemoryServiceApiStore } from "./memory/service-api.js";
import { MemoryTeamStore } from "./memory/teams.js";
import { MemoryTriggerStore } from "./memory/triggers.js";
import { type PostgresSpec, parsePostgresSpec } from "./postgres/spec.js";
import { SqliteAppTestStore } from "./sqlite/app-tests.js";
import { SqliteAppStore } from "./sqlite/apps.js";
import { SqliteAuditStore } from "./sqlite/audit.js";
import { SqliteConversationStore } from "./sqlite/conversations.js";
import { openSqlite, type SqliteOptions } from "./sqlite/database.js";
import { SqliteEnvStore } from "./sqlite/env.js";
import { SqliteFormStore } from "./sqlite/forms.js";
import { GroupCommit } from "./sqlite/group-commit.js";
import { SqliteIdentityStore } from "./sqlite/identities.js";
import { SqliteInviteStore } from "./sqlite/invites.js";
import { SqliteKnowledgeStore } from "./sqlite/knowledge.js";
import { SqliteRunLog } from "./sqlite/runlog.js";
import { SqliteRunStore } from "./sqlite/runs.js";
import { SqliteScheduleStore } from "./sqlite/schedules.js";
import { SqliteServiceApiStore } from "./sqlite/service-api.js";
import { SqliteTeamStore } from "./sqlite/teams.js";
import { SqliteTriggerStore } from "./sqlite/triggers.js";
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
  if (parsed.kind === "memory") {
    // Full-text search is SQLite's FTS5 even in memory: an in-process database that ends with the stores.
    const kb = new Database(":memory:");
    const runs = new MemoryRunStore();
    return {
      kind: "memory",
      runs,
      runLog: new MemoryRunLog(runs),
      apps: new MemoryAppStore(),
      forms: new MemoryFormStore(),
      service: new MemoryServiceApiStore(),
      conversations: new MemoryConversationStore(),
      env: new MemoryEnvStore(),
      schedules: new MemoryScheduleStore(),
      triggers: new MemoryTriggerStore(),
      teams: new MemoryTeamStore(),
      identities: new MemoryIdentityStore(),
      audit: new MemoryAuditStore(),
      invites: new MemoryInviteStore(),
      appTests: new MemoryAppTestStore(),
      knowledge: new SqliteKnowledgeStore(kb),
      close: async () => {
        if (kb.open) kb.close();
      },
    };
  }
  if (parsed.kind === "postgres") {
    // Loaded on demand: commands on SQLite never load the PostgreSQL driver.
    const { openPostgresStores } = await import("./postgres/open.js");
    return openPostgresStores(parsed);
  }
  const db = openSqlite(parsed.path, o);
  // One group for the connection: a run's commits and its event log share the durable sync of other runs'.
  const group = new GroupCommit(db);
  try {
    return {
      kind: "sqlite",
      runs: new SqliteRunStore(db, group),
      apps: new SqliteAppStore(db, group),
      // After the run store: its triggers and indexes are on the runs table.
      runLog: new SqliteRunLog(db, group),
      knowledge: new SqliteKnowledgeStore(db),
      forms: new SqliteFormStore(db),
      service: new SqliteServiceApiStore(db, group),
      conversations: new SqliteConversationStore(db),
      env: new SqliteEnvStore(db),
      schedules: new SqliteScheduleStore(db),
      triggers: new SqliteTriggerStore(db),
      teams: new SqliteTeamStore(db),
      identities: new SqliteIdentityStore(db),
      audit: new SqliteAuditStore(db),
      invites: new SqliteInviteStore(db),
      appTests: new SqliteAppTestStore(db),
      close: async () => {
        await group.close();
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
