import { StoreOpenError } from "../errors.js";
import type { PgDatabase, Query } from "./database.js";

/**
 * The schema's history: each migration is applied once, in order, and never changed after it is released
 * (a change is a new migration). Text that users or models write is kept in `json` columns (a JSON string):
 * PostgreSQL `text` cannot hold a NUL character, JSON's `\u0000` escape can, and `json` (unlike `jsonb`)
 * keeps the text exactly, key order included.
 */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "runs: runs, node commits (first commit wins), attempts, artifact versions",
    sql: `
CREATE TABLE runs (
  id text PRIMARY KEY, seq bigserial UNIQUE, app_id text, workflow json NOT NULL, inputs json NOT NULL,
  status text NOT NULL, outputs json, error json, created_at bigint NOT NULL, updated_at bigint NOT NULL);
CREATE INDEX runs_recent ON runs (created_at DESC, seq DESC);
CREATE INDEX runs_app_recent ON runs (app_id, created_at DESC, seq DESC);
CREATE TABLE node_commits (
  run_id text NOT NULL, key text NOT NULL, seq bigserial, node_id text NOT NULL, status text NOT NULL,
  outputs json NOT NULL, port text, writes json, created_at bigint NOT NULL, PRIMARY KEY (run_id, key));
CREATE TABLE attempts (
  seq bigserial PRIMARY KEY, run_id text NOT NULL, key text NOT NULL, node_id text NOT NULL, record json NOT NULL);
CREATE INDEX attempts_run ON attempts (run_id, seq);
CREATE TABLE artifact_heads (
  run_id text NOT NULL, node_id text NOT NULL, name text NOT NULL, version integer NOT NULL,
  PRIMARY KEY (run_id, node_id, name));
CREATE TABLE artifacts (
  run_id text NOT NULL, node_id text NOT NULL, name text NOT NULL, version integer NOT NULL, key text NOT NULL,
  value json, created_at bigint NOT NULL, commit_seq bigint NOT NULL, ord integer NOT NULL,
  PRIMARY KEY (run_id, node_id, name, version));
CREATE INDEX artifacts_run ON artifacts (run_id, commit_seq, ord);`,
  },
  {
    version: 2,
    name: "apps: apps, workflow versions, API keys, chat messages, run event logs",
    sql: `
CREATE TABLE apps (
  id text PRIMARY KEY, seq bigserial UNIQUE, name json NOT NULL, mode text NOT NULL, description json NOT NULL,
  created_at bigint NOT NULL, updated_at bigint NOT NULL);
CREATE TABLE app_versions (
  app_id text NOT NULL, version integer NOT NULL, workflow json NOT NULL, source text NOT NULL, note json NOT NULL,
  created_at bigint NOT NULL, PRIMARY KEY (app_id, version));
CREATE TABLE api_keys (
  id text PRIMARY KEY, seq bigserial UNIQUE, name json NOT NULL, hash text NOT NULL UNIQUE,
  created_at bigint NOT NULL, last_used_at bigint);
CREATE TABLE chat_messages (
  seq bigserial PRIMARY KEY, app_id text NOT NULL, role text NOT NULL, text json NOT NULL, version integer,
  created_at bigint NOT NULL);
CREATE INDEX chat_messages_app ON chat_messages (app_id, seq);
CREATE TABLE run_events (run_id text NOT NULL, seq integer NOT NULL, event json NOT NULL, PRIMARY KEY (run_id, seq));`,
  },
  {
    version: 3,
    name: "edits: version parents and restores, turn outcomes, proposals",
    sql: `
ALTER TABLE app_versions ADD COLUMN parent integer, ADD COLUMN restores integer;
ALTER TABLE chat_messages ADD COLUMN outcome json, ADD COLUMN proposal_id text;
CREATE TABLE proposals (
  id text PRIMARY KEY, seq bigserial UNIQUE, app_id text NOT NULL, base_version integer NOT NULL,
  status text NOT NULL, source json NOT NULL, instruction json NOT NULL, workflow json NOT NULL, diff json NOT NULL,
  diagnostics json NOT NULL, new_errors json NOT NULL, summary json NOT NULL, applied_version integer,
  created_at bigint NOT NULL, decided_at bigint);
CREATE INDEX proposals_app ON proposals (app_id, created_at, seq);`,
  },
  {
    version: 4,
    name: "conversations: chat apps' conversation variables",
    sql: `
CREATE TABLE conversations (
  id text PRIMARY KEY, seq bigserial UNIQUE, app_id text NOT NULL, variables json NOT NULL,
  dialogue_count integer NOT NULL, created_at bigint NOT NULL, updated_at bigint NOT NULL);
CREATE INDEX conversations_app ON conversations (app_id, created_at);`,
  },
  {
    version: 5,
    name: "service API and human input: end users, names and messages of conversations, human-input forms, app keys, service runs, uploads",
    sql: `
ALTER TABLE conversations ADD COLUMN user_id json NOT NULL DEFAULT '""', ADD COLUMN name json NOT NULL DEFAULT '""',
  ADD COLUMN inputs json NOT NULL DEFAULT '{}';
CREATE INDEX conversations_user ON conversations (app_id, updated_at);
CREATE TABLE conversation_messages (
  id text PRIMARY KEY, conversation_id text NOT NULL, app_id text NOT NULL, user_id json NOT NULL, run_id text NOT NULL,
  query json NOT NULL, answer json NOT NULL, inputs json NOT NULL, files json NOT NULL, status text NOT NULL,
  error json, created_at bigint NOT NULL, updated_at bigint NOT NULL);
CREATE INDEX conversation_messages_conversation ON conversation_messages (conversation_id, created_at, id);
CREATE TABLE human_forms (
  id text PRIMARY KEY, token text NOT NULL UNIQUE, run_id text NOT NULL, node_key text NOT NULL, node_id text NOT NULL,
  node_title json NOT NULL, content json NOT NULL, inputs json NOT NULL, actions json NOT NULL, defaults json NOT NULL,
  created_at bigint NOT NULL, expires_at bigint, status text NOT NULL, submission json, closed_at bigint,
  UNIQUE (run_id, node_key));
CREATE INDEX human_forms_status ON human_forms (status, created_at);
CREATE TABLE app_keys (
  id text PRIMARY KEY, seq bigserial UNIQUE, app_id text NOT NULL, hash text NOT NULL UNIQUE, created_at bigint NOT NULL);
CREATE TABLE service_runs (
  run_id text PRIMARY KEY, app_id text NOT NULL, user_id json NOT NULL, conversation_id text, message_id text,
  files json NOT NULL, created_at bigint NOT NULL);
CREATE TABLE uploads (
  id text PRIMARY KEY, app_id text NOT NULL, user_id json NOT NULL, file json NOT NULL, created_at bigint NOT NULL);`,
  },
  {
    version: 6,
    // Partial indexes: only runs a server holds carry a lease, so renewing and sweeping touch a handful of rows.
    name: "run leases: the server process holding a running run, and until when",
    sql: `
ALTER TABLE runs ADD COLUMN lease_owner text, ADD COLUMN lease_expires bigint;
CREATE INDEX runs_lease_expires ON runs (lease_expires) WHERE lease_expires IS NOT NULL;
CREATE INDEX runs_lease_owner ON runs (lease_owner) WHERE lease_owner IS NOT NULL;`,
  },
  {
    version: 7,
    name: "drafts and publishing: one draft per app, the published version (apps before it: their newest version)",
    sql: `
ALTER TABLE apps ADD COLUMN published_version integer;
UPDATE apps SET published_version = (SELECT MAX(version) FROM app_versions v WHERE v.app_id = apps.id);
CREATE TABLE app_drafts (
  app_id text PRIMARY KEY, workflow json NOT NULL, diagnostics json, revision integer NOT NULL,
  base_version integer NOT NULL, updated_at bigint NOT NULL);
INSERT INTO app_drafts (app_id, workflow, diagnostics, revision, base_version, updated_at)
  SELECT DISTINCT ON (app_id) app_id, workflow, NULL, 1, version, created_at FROM app_versions
  ORDER BY app_id, version DESC;`,
  },
  {
    version: 8,
    name: "run logs: where each run came from, full-text search over inputs and outputs, newest-first indexes",
    sql: `
CREATE TABLE run_tags (run_id text PRIMARY KEY, source text NOT NULL, version integer, draft boolean);
CREATE INDEX runs_recent_id ON runs (created_at DESC, id DESC);
CREATE INDEX runs_app_recent_id ON runs (app_id, created_at DESC, id DESC);
CREATE INDEX runs_text ON runs USING gin (to_tsvector('simple', inputs::text || ' ' || COALESCE(outputs::text, '')));`,
  },
  {
    version: 9,
    name: "environment variables: per-app values, secrets sealed with AES-256-GCM (key id, IV, tag, ciphertext)",
    sql: `
CREATE TABLE app_env (
  app_id text NOT NULL, name text NOT NULL, type text NOT NULL, value json, key_id text, iv text, tag text,
  data text, updated_at bigint NOT NULL, PRIMARY KEY (app_id, name));`,
  },
  {
    version: 10,
    // The search column is stored: matching a page of newest runs against it costs no to_tsvector per row, which
    // a search across all apps (walking the newest-first index) spent most of its time on with migration 8's index.
    name: "proposals apply to the draft (base revision and workflow, applied revision, undo); a stored run search column",
    sql: `
ALTER TABLE proposals ADD COLUMN base_revision integer, ADD COLUMN base_workflow json,
  ADD COLUMN applied_revision integer, ADD COLUMN undone_at bigint;
ALTER TABLE runs ADD COLUMN search tsvector
  GENERATED ALWAYS AS (to_tsvector('simple', inputs::text || ' ' || COALESCE(outputs::text, ''))) STORED;
DROP INDEX runs_text;
CREATE INDEX runs_search ON runs USING gin (search);`,
  },
  {
    version: 11,
    name: "triggers: per-app trigger rows (webhook, schedule, plugin), webhook deliveries (idempotency keys), run tags' trigger id",
    sql: `
CREATE TABLE triggers (
  id text PRIMARY KEY, type text NOT NULL, app_id text NOT NULL, node_id text NOT NULL, enabled boolean NOT NULL,
  created_at bigint NOT NULL, updated_at bigint NOT NULL, UNIQUE (app_id, type, node_id));
CREATE TABLE trigger_deliveries (
  id text PRIMARY KEY, trigger_id text NOT NULL, idempotency_key text, run_id text NOT NULL, status integer NOT NULL,
  received_at bigint NOT NULL);
CREATE UNIQUE INDEX trigger_deliveries_key ON trigger_deliveries (trigger_id, idempotency_key)
  WHERE idempotency_key IS NOT NULL;
CREATE INDEX trigger_deliveries_recent ON trigger_deliveries (trigger_id, received_at DESC, id DESC);
ALTER TABLE run_tags ADD COLUMN trigger_id text;
CREATE INDEX run_tags_trigger ON run_tags (trigger_id) WHERE trigger_id IS NOT NULL;`,
  },
  {
    version: 12,
    name: "schedule triggers: the last tick dealt with per schedule, one row per fired tick (the claim)",
    sql: `
CREATE TABLE schedule_state (
  key text PRIMARY KEY, app_id text NOT NULL, node_id text NOT NULL, cron text NOT NULL, timezone text NOT NULL,
  last_tick bigint NOT NULL, updated_at bigint NOT NULL);
CREATE TABLE schedule_fires (
  key text NOT NULL, tick bigint NOT NULL, run_id text NOT NULL, claimed_at bigint NOT NULL, dispatched_at bigint,
  PRIMARY KEY (key, tick));
CREATE INDEX schedule_fires_pending ON schedule_fires (claimed_at) WHERE dispatched_at IS NULL;`,
  },
  {
    version: 13,
    name: "teams: users, workspaces (default for what was there), memberships, sessions, resource owners",
    sql: `
CREATE TABLE users (
  id text PRIMARY KEY, seq bigserial UNIQUE, email text NOT NULL UNIQUE, password_hash text NOT NULL,
  created_at bigint NOT NULL);
CREATE TABLE workspaces (id text PRIMARY KEY, name json NOT NULL, created_at bigint NOT NULL);
INSERT INTO workspaces (id, name, created_at) VALUES ('default', '"Default"', 0);
CREATE TABLE memberships (
  workspace_id text NOT NULL REFERENCES workspaces (id), user_id text NOT NULL REFERENCES users (id),
  role text NOT NULL, seq bigserial UNIQUE, created_at bigint NOT NULL, PRIMARY KEY (workspace_id, user_id));
CREATE INDEX memberships_user ON memberships (user_id);
CREATE TABLE sessions (
  token_hash text PRIMARY KEY, user_id text NOT NULL, workspace_id text NOT NULL, csrf_token text NOT NULL,
  created_at bigint NOT NULL, expires_at bigint NOT NULL);
CREATE INDEX sessions_user ON sessions (user_id);
CREATE TABLE resource_owners (kind text NOT NULL, id text NOT NULL, workspace_id text NOT NULL, PRIMARY KEY (kind, id));`,
  },
  {
    version: 14,
    name: "app tests: per-app test cases, test settings (the publish gate), gate overrides, cached model answers",
    sql: `
CREATE TABLE app_test_cases (
  app_id text NOT NULL, id text NOT NULL, name text NOT NULL, spec text NOT NULL, source_run_id text,
  created_at bigint NOT NULL, updated_at bigint NOT NULL, PRIMARY KEY (app_id, id));
CREATE TABLE app_test_settings (
  app_id text PRIMARY KEY, require_pass boolean NOT NULL, k integer NOT NULL, min_pass_hat_k double precision NOT NULL,
  updated_at bigint NOT NULL);
CREATE TABLE app_test_overrides (
  id text PRIMARY KEY, app_id text NOT NULL, version integer NOT NULL, reason text NOT NULL, by_whom text NOT NULL,
  failing text NOT NULL, at bigint NOT NULL);
CREATE INDEX app_test_overrides_app ON app_test_overrides (app_id, at DESC);
CREATE TABLE model_answer_cache (key text PRIMARY KEY, answer text NOT NULL, created_at bigint NOT NULL);`,
  },
  {
    version: 15,
    name: "webhook deliveries: state (accepted with the run's inputs until its run exists, started, failed), claimed by the process starting its run, so a delivery whose process died before its run is made good once",
    sql: `
ALTER TABLE trigger_deliveries ADD COLUMN state text NOT NULL DEFAULT 'started';
ALTER TABLE trigger_deliveries ADD COLUMN payload jsonb;
ALTER TABLE trigger_deliveries ADD COLUMN error text;
ALTER TABLE trigger_deliveries ADD COLUMN claimed_at bigint;
CREATE INDEX trigger_deliveries_accepted ON trigger_deliveries (received_at) WHERE state = 'accepted';`,
  },
  // 16 and 17 were never released: work numbered so was merged after 18 had shipped, as 19 and 20, so that a
  // schema already at 18 still receives it (only versions above the applied one run).
  {
    version: 18,
    name: "proposals carry their test result (the app's cases on the draft with the proposal, or a dry run)",
    sql: `ALTER TABLE proposals ADD COLUMN tests json;`,
  },
  {
    version: 19,
    name: "identities: which account an OIDC issuer's subject signs in as (created or linked at its first SSO login)",
    sql: `
CREATE TABLE identities (
  issuer text NOT NULL, subject text NOT NULL, user_id text NOT NULL REFERENCES users (id), email text NOT NULL,
  seq bigserial UNIQUE, created_at bigint NOT NULL, PRIMARY KEY (issuer, subject));
CREATE INDEX identities_user ON identities (user_id);`,
  },
  {
    version: 20,
    name: "audit log (who did what, when, with which key or session) and api keys carrying a workspace and a role; invites and setup links",
    sql: `
CREATE TABLE audit_log (
  id text PRIMARY KEY, seq bigserial UNIQUE, at bigint NOT NULL, workspace_id text NOT NULL, actor_kind text NOT NULL,
  actor_id text NOT NULL, actor_label text NOT NULL, action text NOT NULL, target text, detail text);
CREATE INDEX audit_log_at ON audit_log (workspace_id, at);
ALTER TABLE api_keys ADD COLUMN workspace_id text NOT NULL DEFAULT 'default';
ALTER TABLE api_keys ADD COLUMN role text NOT NULL DEFAULT 'owner';
CREATE TABLE invites (
  token_hash text PRIMARY KEY, id text NOT NULL UNIQUE, seq bigserial UNIQUE, purpose text NOT NULL,
  workspace_id text NOT NULL, role text NOT NULL, created_by text, created_at bigint NOT NULL, expires_at bigint NOT NULL,
  used_at bigint, used_by text);
CREATE INDEX invites_workspace ON invites (workspace_id, created_at);`,
  },
  {
    version: 21,
    name: "knowledge bases: bases (with their text-search configuration), documents, chunks with a GIN-indexed tsvector and vectors with LSH buckets (B-tree indexed)",
    sql: `
CREATE TABLE kb_bases (
  id text PRIMARY KEY, seq bigserial UNIQUE, name json NOT NULL, description json NOT NULL, chunking json NOT NULL,
  embedding_model json, ts_config text NOT NULL, created_at bigint NOT NULL);
CREATE TABLE kb_documents (
  id text PRIMARY KEY, seq bigserial UNIQUE, base_id text NOT NULL REFERENCES kb_bases (id) ON DELETE CASCADE,
  name json NOT NULL, mime_type json NOT NULL, size bigint NOT NULL, metadata json NOT NULL, created_at bigint NOT NULL);
CREATE INDEX kb_documents_base ON kb_documents (base_id, seq);
CREATE TABLE kb_chunks (
  seq bigserial PRIMARY KEY, id text NOT NULL UNIQUE, base_id text NOT NULL,
  document_id text NOT NULL REFERENCES kb_documents (id) ON DELETE CASCADE, position integer NOT NULL,
  content json NOT NULL, tsv tsvector NOT NULL, embedding bytea,
  lsh0 integer, lsh1 integer, lsh2 integer, lsh3 integer);
CREATE INDEX kb_chunks_tsv ON kb_chunks USING gin (tsv);
CREATE INDEX kb_chunks_base ON kb_chunks (base_id);
CREATE INDEX kb_chunks_document ON kb_chunks (document_id);
CREATE INDEX kb_chunks_lsh0 ON kb_chunks (base_id, lsh0) WHERE lsh0 IS NOT NULL;
CREATE INDEX kb_chunks_lsh1 ON kb_chunks (base_id, lsh1) WHERE lsh1 IS NOT NULL;
CREATE INDEX kb_chunks_lsh2 ON kb_chunks (base_id, lsh2) WHERE lsh2 IS NOT NULL;
CREATE INDEX kb_chunks_lsh3 ON kb_chunks (base_id, lsh3) WHERE lsh3 IS NOT NULL;`,
  },
  {
    version: 22,
    name: "knowledge bases: parent chunks of parent-child chunking (children stay in kb_chunks, naming their parent)",
    sql: `
CREATE TABLE kb_parents (
  id text PRIMARY KEY, base_id text NOT NULL,
  document_id text NOT NULL REFERENCES kb_documents (id) ON DELETE CASCADE, position integer NOT NULL, content json NOT NULL);
CREATE INDEX kb_parents_document ON kb_parents (document_id);
ALTER TABLE kb_chunks ADD COLUMN parent_id text REFERENCES kb_parents (id) ON DELETE CASCADE;`,
  },
];

export const SCHEMA_VERSION = MIGRATIONS.at(-1)!.version;

// Any constant works: it only has to be the same for every Weft process migrating one schema.
const MIGRATION_LOCK = 0x77656674; // "weft"

async function appliedVersion(q: Query): Promise<number> {
  await q(`CREATE TABLE IF NOT EXISTS weft_migrations (
    version integer PRIMARY KEY, name text NOT NULL, applied_at bigint NOT NULL)`);
  const [row] = await q<{ v: number }>("SELECT COALESCE(MAX(version), 0) AS v FROM weft_migrations");
  return row!.v;
}

/**
 * Bring the schema up to date in one transaction: all pending migrations or none. An advisory lock (per
 * schema) makes servers and workers that start together take turns, so each migration runs exactly once.
 * A schema newer than this Weft is refused rather than used half-understood.
 */
export async function migrate(db: PgDatabase, migrations: readonly Migration[] = MIGRATIONS): Promise<number[]> {
  return db.tx(async (q) => {
    await q("SELECT pg_advisory_xact_lock($1, hashtext($2))", [MIGRATION_LOCK, db.schema]);
    await q(`CREATE SCHEMA IF NOT EXISTS ${db.schema}`);
    const have = await appliedVersion(q);
    const latest = migrations.at(-1)?.version ?? 0;
    if (have > latest)
      throw new StoreOpenError(
        "store.schema_newer",
        `${db.label}: schema "${db.schema}" is at version ${have}, newer than this Weft understands (${latest}); upgrade Weft or use another schema (?schema=NAME)`,
        { database: db.label, schema: db.schema, version: have, known: latest },
      );
    const applied: number[] = [];
    for (const m of migrations.filter((x) => x.version > have)) {
      try {
        await q(m.sql);
      } catch (e) {
        throw new StoreOpenError(
          "store.migration_failed",
          `${db.label}: migration ${m.version} (${m.name}) failed in schema "${db.schema}": ${(e as Error).message}`,
          { database: db.label, schema: db.schema, version: m.version },
        );
      }
      await q("INSERT INTO weft_migrations (version, name, applied_at) VALUES ($1, $2, $3)", [
        m.version,
        m.name,
        Date.now(),
      ]);
      applied.push(m.version);
    }
    return applied;
  });
}
