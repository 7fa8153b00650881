import { StoreError, StoreOpenError } from "../errors.js";
import type { Stores } from "../stores.js";
import { PostgresAppTestStore } from "./app-tests.js";
import { PostgresAppStore } from "./apps.js";
import { PostgresAuditStore } from "./audit.js";
import { PostgresConversationStore } from "./conversations.js";
import { createPool, pgDatabase } from "./database.js";
import { PostgresEnvStore } from "./env.js";
import { pgStoreError } from "./errors.js";
import { PostgresFormStore } from "./forms.js";
import { PostgresIdentityStore } from "./identities.js";
import { PostgresInviteStore } from "./invites.js";
import { PostgresKnowledgeStore } from "./knowledge.js";
import { migrate } from "./migrations.js";
import { chooseVectorIndex, type VectorIndexChoice } from "./pgvector.js";
import { PostgresRunLog } from "./runlog.js";
import { PostgresRunStore } from "./runs.js";
import { PostgresScheduleStore } from "./schedules.js";
import { PostgresServiceApiStore } from "./service-api.js";
import type { PostgresSpec } from "./spec.js";
import { PostgresTeamStore } from "./teams.js";
import { PostgresTriggerStore } from "./triggers.js";

/**
 * Batched node commits may hold a third of the pool (at least one connection): more statements in flight
 * shorten each commit's wait for a free batch, fewer leave connections for the reads a request makes.
 */
const commitsInFlight = (poolMax: number) => Math.max(1, Math.floor(poolMax / 3));

/**
 * Connect to the database and bring its schema up to date before any store is used, so a server that cannot
 * reach or use the database says so at start, with a typed error naming it, not at its first request.
 */
export async function openPostgresStores(spec: PostgresSpec): Promise<Stores> {
  const pool = createPool(spec);
  const db = pgDatabase(spec, pool);
  let vectors: VectorIndexChoice;
  try {
    await migrate(db);
    vectors = await chooseVectorIndex(db, spec.vectorIndex);
  } catch (e) {
    await db.close(1_000);
    throw asOpenError(spec.label, e);
  }
  return {
    kind: "postgres",
    runs: new PostgresRunStore(db, commitsInFlight(spec.poolMax)),
    runLog: new PostgresRunLog(db),
    apps: new PostgresAppStore(db),
    conversations: new PostgresConversationStore(db),
    env: new PostgresEnvStore(db),
    schedules: new PostgresScheduleStore(db),
    triggers: new PostgresTriggerStore(db),
    teams: new PostgresTeamStore(db),
    identities: new PostgresIdentityStore(db),
    audit: new PostgresAuditStore(db),
    invites: new PostgresInviteStore(db),
    appTests: new PostgresAppTestStore(db),
    forms: new PostgresFormStore(db),
    knowledge: new PostgresKnowledgeStore(db, spec.textSearch, vectors),
    service: new PostgresServiceApiStore(db),
    close: () => db.close(),
  };
}

/** A failure while opening is a configuration problem (exit 2 in the CLI), whatever statement hit it. */
function asOpenError(label: string, e: unknown): unknown {
  if (e instanceof StoreOpenError) return e;
  if (e instanceof StoreError) return new StoreOpenError(e.code, e.message, e.details);
  return pgStoreError(label, e, StoreOpenError);
}
