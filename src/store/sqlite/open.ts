import { StoreOpenError } from "../errors.js";
import type { Stores } from "../stores.js";
import { SqliteAppTestStore } from "./app-tests.js";
import { SqliteAppStore } from "./apps.js";
import { SqliteAuditStore } from "./audit.js";
import { SqliteConversationStore } from "./conversations.js";
import { openSqlite, type SqliteOptions } from "./database.js";
import { SqliteEnvStore } from "./env.js";
import { SqliteFormStore } from "./forms.js";
import { GroupCommit } from "./group-commit.js";
import { SqliteIdentityStore } from "./identities.js";
import { SqliteInviteStore } from "./invites.js";
import { SqliteKnowledgeStore } from "./knowledge.js";
import { SqliteRunLog } from "./runlog.js";
import { SqliteRunStore } from "./runs.js";
import { SqliteScheduleStore } from "./schedules.js";
import { SqliteServiceApiStore } from "./service-api.js";
import { SqliteTeamStore } from "./teams.js";
import { SqliteTriggerStore } from "./triggers.js";

/** Every store of the SQLite database at `path` (see ../open.ts), on one connection. */
export function openSqliteStores(parsed: { path: string }, o: { synchronous?: SqliteOptions["synchronous"] }): Stores {
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
