import { createHash, randomBytes } from "node:crypto";
import type Database from "better-sqlite3";
import { ulid } from "ulid";
import type { TurnOutcome } from "../agent/outcome.js";
import type { RunEvent } from "../engine/events.js";
import type { Diagnostic } from "../ir/diagnostics.js";
import type { WorkflowDiff } from "../ir/diff.js";
import type { AppMode, Workflow } from "../ir/workflow.js";

/**
 * The server's own tables (apps, workflow versions, API keys, chat messages, run event logs), kept in the
 * same SQLite database as the run store so one file holds all state.
 */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS apps (
  id TEXT PRIMARY KEY, name TEXT NOT NULL, mode TEXT NOT NULL, description TEXT NOT NULL DEFAULT '',
  created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS app_versions (
  app_id TEXT NOT NULL, version INTEGER NOT NULL, workflow TEXT NOT NULL, source TEXT NOT NULL,
  note TEXT NOT NULL DEFAULT '', created_at INTEGER NOT NULL, PRIMARY KEY (app_id, version));
CREATE TABLE IF NOT EXISTS api_keys (
  id TEXT PRIMARY KEY, name TEXT NOT NULL, hash TEXT NOT NULL UNIQUE, created_at INTEGER NOT NULL, last_used_at INTEGER);
CREATE TABLE IF NOT EXISTS chat_messages (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, app_id TEXT NOT NULL, role TEXT NOT NULL, text TEXT NOT NULL,
  version INTEGER, created_at INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS chat_messages_app ON chat_messages(app_id, seq);
CREATE TABLE IF NOT EXISTS run_events (
  run_id TEXT NOT NULL, seq INTEGER NOT NULL, event TEXT NOT NULL, PRIMARY KEY (run_id, seq));
CREATE TABLE IF NOT EXISTS proposals (
  id TEXT PRIMARY KEY, app_id TEXT NOT NULL, base_version INTEGER NOT NULL, status TEXT NOT NULL,
  source TEXT NOT NULL, instruction TEXT NOT NULL DEFAULT '', workflow TEXT NOT NULL, diff TEXT NOT NULL,
  diagnostics TEXT NOT NULL, new_errors TEXT NOT NULL, summary TEXT NOT NULL, applied_version INTEGER,
  created_at INTEGER NOT NULL, decided_at INTEGER);
CREATE INDEX IF NOT EXISTS proposals_app ON proposals(app_id, created_at);
`;

/** Columns added after the first release; plain ADD COLUMN, which every SQL database has. */
const ADDED_COLUMNS: Array<[table: string, column: string, decl: string]> = [
  ["app_versions", "parent", "INTEGER"],
  ["app_versions", "restores", "INTEGER"],
  ["chat_messages", "outcome", "TEXT"],
  ["chat_messages", "proposal_id", "TEXT"],
];

export interface AppRecord {
  id: string;
  name: string;
  mode: AppMode;
  description: string;
  createdAt: number;
  updatedAt: number;
}

export type VersionSource = "create" | "import" | "edit" | "agent" | "sample" | "proposal" | "undo" | "restore";

export interface VersionRecord {
  appId: string;
  version: number;
  workflow: Workflow;
  source: VersionSource;
  note: string;
  /** The version this one was made from (undo goes back to it). */
  parent?: number;
  /** For an undo or restore: the version whose workflow this one restores. */
  restores?: number;
  createdAt: number;
}

export interface ChatMessageRecord {
  seq: number;
  role: "user" | "assistant";
  text: string;
  version?: number;
  /** What the turn really did (assistant messages), see src/agent/outcome.ts. */
  outcome?: TurnOutcome;
  proposalId?: string;
  createdAt: number;
}

export type ProposalStatus = "pending" | "applied" | "rejected" | "superseded";

export interface ProposalRecord {
  id: string;
  appId: string;
  baseVersion: number;
  status: ProposalStatus;
  /** Who made it: the agent chat, the CLI chat, or a client through POST /proposals. */
  source: string;
  instruction: string;
  workflow: Workflow;
  diff: WorkflowDiff;
  diagnostics: Diagnostic[];
  newErrors: Diagnostic[];
  summary: string;
  appliedVersion?: number;
  createdAt: number;
  decidedAt?: number;
}

export type NewProposal = Omit<ProposalRecord, "id" | "status" | "createdAt" | "decidedAt" | "appliedVersion">;

export interface ApiKeyRecord {
  id: string;
  name: string;
  createdAt: number;
  lastUsedAt?: number;
}

export interface VersionLinks {
  parent?: number;
  restores?: number;
}

export const hashKey = (key: string) => createHash("sha256").update(key).digest("hex");

const toApp = (r: any): AppRecord => ({
  id: r.id,
  name: r.name,
  mode: r.mode,
  description: r.description,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});
const toVersion = (r: any): VersionRecord => ({
  appId: r.app_id,
  version: r.version,
  workflow: JSON.parse(r.workflow),
  source: r.source,
  note: r.note,
  ...(r.parent !== null && r.parent !== undefined ? { parent: r.parent } : {}),
  ...(r.restores !== null && r.restores !== undefined ? { restores: r.restores } : {}),
  createdAt: r.created_at,
});

const toProposal = (r: any): ProposalRecord => ({
  id: r.id,
  appId: r.app_id,
  baseVersion: r.base_version,
  status: r.status,
  source: r.source,
  instruction: r.instruction,
  workflow: JSON.parse(r.workflow),
  diff: JSON.parse(r.diff),
  diagnostics: JSON.parse(r.diagnostics),
  newErrors: JSON.parse(r.new_errors),
  summary: r.summary,
  ...(r.applied_version !== null ? { appliedVersion: r.applied_version } : {}),
  createdAt: r.created_at,
  ...(r.decided_at !== null ? { decidedAt: r.decided_at } : {}),
});

export class AppStore {
  constructor(readonly db: Database.Database) {
    db.exec(SCHEMA);
    for (const [table, column, decl] of ADDED_COLUMNS) {
      const cols = db.prepare(`PRAGMA table_info(${table})`).all() as Array<{ name: string }>;
      if (!cols.some((c) => c.name === column)) db.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${decl}`);
    }
  }

  createApp(
    a: { name: string; mode: AppMode; description?: string },
    workflow: Workflow,
    source: VersionSource,
  ): { app: AppRecord; version: VersionRecord } {
    const id = ulid();
    const now = Date.now();
    this.db.transaction(() => {
      this.db
        .prepare("INSERT INTO apps (id, name, mode, description, created_at, updated_at) VALUES (?,?,?,?,?,?)")
        .run(id, a.name, a.mode, a.description ?? "", now, now);
      this.insertVersion(id, 1, workflow, source, "", now);
    })();
    return { app: this.getApp(id)!, version: this.version(id, 1)! };
  }

  listApps(): AppRecord[] {
    return this.db.prepare("SELECT * FROM apps ORDER BY created_at DESC").all().map(toApp);
  }

  getApp(id: string): AppRecord | undefined {
    const r = this.db.prepare("SELECT * FROM apps WHERE id = ?").get(id);
    return r ? toApp(r) : undefined;
  }

  deleteApp(id: string): boolean {
    return this.db.transaction(() => {
      this.db.prepare("DELETE FROM app_versions WHERE app_id = ?").run(id);
      this.db.prepare("DELETE FROM proposals WHERE app_id = ?").run(id);
      this.db.prepare("DELETE FROM chat_messages WHERE app_id = ?").run(id);
      return this.db.prepare("DELETE FROM apps WHERE id = ?").run(id).changes > 0;
    })();
  }

  private insertVersion(
    appId: string,
    version: number,
    wf: Workflow,
    source: VersionSource,
    note: string,
    now: number,
    links: VersionLinks = {},
  ): void {
    this.db
      .prepare(
        "INSERT INTO app_versions (app_id, version, workflow, source, note, created_at, parent, restores) VALUES (?,?,?,?,?,?,?,?)",
      )
      .run(appId, version, JSON.stringify(wf), source, note, now, links.parent ?? null, links.restores ?? null);
  }

  /**
   * Append a version; the app's name follows the workflow's. Without `links.parent` it is made from the
   * current version.
   */
  addVersion(appId: string, wf: Workflow, source: VersionSource, note = "", links: VersionLinks = {}): VersionRecord {
    const now = Date.now();
    const version = this.db.transaction(() => {
      const { v } = this.db
        .prepare("SELECT COALESCE(MAX(version), 0) AS v FROM app_versions WHERE app_id = ?")
        .get(appId) as { v: number };
      this.insertVersion(appId, v + 1, wf, source, note, now, { ...links, parent: links.parent ?? (v > 0 ? v : undefined) });
      this.db.prepare("UPDATE apps SET updated_at = ?, name = ? WHERE id = ?").run(now, wf.name, appId);
      return v + 1;
    })();
    return this.version(appId, version)!;
  }

  current(appId: string): VersionRecord | undefined {
    const r = this.db.prepare("SELECT * FROM app_versions WHERE app_id = ? ORDER BY version DESC LIMIT 1").get(appId);
    return r ? toVersion(r) : undefined;
  }

  version(appId: string, version: number): VersionRecord | undefined {
    const r = this.db.prepare("SELECT * FROM app_versions WHERE app_id = ? AND version = ?").get(appId, version);
    return r ? toVersion(r) : undefined;
  }

  versions(appId: string): VersionRecord[] {
    return this.db.prepare("SELECT * FROM app_versions WHERE app_id = ? ORDER BY version").all(appId).map(toVersion);
  }

  runsOf(appId: string, limit = 50): Array<{ id: string; status: string; createdAt: number; updatedAt: number }> {
    return (
      this.db
        .prepare(
          "SELECT id, status, created_at, updated_at FROM runs WHERE app_id = ? ORDER BY created_at DESC LIMIT ?",
        )
        .all(appId, limit) as any[]
    ).map((r) => ({ id: r.id, status: r.status, createdAt: r.created_at, updatedAt: r.updated_at }));
  }

  addMessage(
    appId: string,
    role: "user" | "assistant",
    text: string,
    version?: number,
    extra: { outcome?: TurnOutcome; proposalId?: string } = {},
  ): void {
    this.db
      .prepare(
        "INSERT INTO chat_messages (app_id, role, text, version, created_at, outcome, proposal_id) VALUES (?,?,?,?,?,?,?)",
      )
      .run(
        appId,
        role,
        text,
        version ?? null,
        Date.now(),
        extra.outcome ? JSON.stringify(extra.outcome) : null,
        extra.proposalId ?? null,
      );
  }

  messages(appId: string): ChatMessageRecord[] {
    return (this.db.prepare("SELECT * FROM chat_messages WHERE app_id = ? ORDER BY seq").all(appId) as any[]).map(
      (r) => ({
        seq: r.seq,
        role: r.role,
        text: r.text,
        version: r.version ?? undefined,
        ...(r.outcome ? { outcome: JSON.parse(r.outcome) } : {}),
        ...(r.proposal_id ? { proposalId: r.proposal_id } : {}),
        createdAt: r.created_at,
      }),
    );
  }

  async createProposal(p: NewProposal): Promise<ProposalRecord> {
    const id = `prop_${ulid()}`;
    this.db
      .prepare(
        `INSERT INTO proposals (id, app_id, base_version, status, source, instruction, workflow, diff, diagnostics,
          new_errors, summary, created_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)`,
      )
      .run(
        id,
        p.appId,
        p.baseVersion,
        "pending",
        p.source,
        p.instruction,
        JSON.stringify(p.workflow),
        JSON.stringify(p.diff),
        JSON.stringify(p.diagnostics),
        JSON.stringify(p.newErrors),
        p.summary,
        Date.now(),
      );
    return (await this.proposal(p.appId, id))!;
  }

  async proposal(appId: string, id: string): Promise<ProposalRecord | undefined> {
    const r = this.db.prepare("SELECT * FROM proposals WHERE app_id = ? AND id = ?").get(appId, id);
    return r ? toProposal(r) : undefined;
  }

  async proposals(appId: string, status?: ProposalStatus): Promise<ProposalRecord[]> {
    const rows = status
      ? this.db.prepare("SELECT * FROM proposals WHERE app_id = ? AND status = ? ORDER BY created_at, id").all(appId, status)
      : this.db.prepare("SELECT * FROM proposals WHERE app_id = ? ORDER BY created_at, id").all(appId);
    return rows.map(toProposal);
  }

  /**
   * Decide a pending proposal. Only a pending one changes (the check is in the UPDATE, so two requests
   * cannot both decide it); false when it was not pending.
   */
  async decideProposal(
    appId: string,
    id: string,
    status: Exclude<ProposalStatus, "pending">,
    appliedVersion?: number,
  ): Promise<boolean> {
    const r = this.db
      .prepare(
        "UPDATE proposals SET status = ?, applied_version = ?, decided_at = ? WHERE app_id = ? AND id = ? AND status = 'pending'",
      )
      .run(status, appliedVersion ?? null, Date.now(), appId, id);
    return r.changes > 0;
  }

  /**
   * Apply a pending proposal: the new version and the decision in one transaction, and only while the
   * app is still at the proposal's base version. Undefined when either condition no longer holds.
   */
  async applyProposal(appId: string, id: string, wf: Workflow, note: string): Promise<VersionRecord | undefined> {
    return this.db.transaction(() => {
      const row = this.db.prepare("SELECT base_version, status FROM proposals WHERE app_id = ? AND id = ?").get(appId, id) as
        | { base_version: number; status: string }
        | undefined;
      const cur = this.current(appId);
      if (!row || row.status !== "pending" || cur?.version !== row.base_version) return undefined;
      const v = this.addVersion(appId, wf, "proposal", note, { parent: row.base_version });
      this.db
        .prepare("UPDATE proposals SET status = 'applied', applied_version = ?, decided_at = ? WHERE id = ?")
        .run(v.version, Date.now(), id);
      return v;
    })();
  }

  /** A new API key; only its SHA-256 is stored, so the plain key is shown once. */
  createKey(name = "default"): { id: string; key: string } {
    const id = ulid();
    const key = `weft_${randomBytes(24).toString("base64url")}`;
    this.db
      .prepare("INSERT INTO api_keys (id, name, hash, created_at) VALUES (?,?,?,?)")
      .run(id, name, hashKey(key), Date.now());
    return { id, key };
  }

  listKeys(): ApiKeyRecord[] {
    return (
      this.db.prepare("SELECT id, name, created_at, last_used_at FROM api_keys ORDER BY created_at").all() as any[]
    ).map((r) => ({
      id: r.id,
      name: r.name,
      createdAt: r.created_at,
      lastUsedAt: r.last_used_at ?? undefined,
    }));
  }

  revokeKey(id: string): boolean {
    return this.db.prepare("DELETE FROM api_keys WHERE id = ?").run(id).changes > 0;
  }

  private keyLookup?: Database.Statement;

  verifyKey(key: string): boolean {
    this.keyLookup ??= this.db.prepare("SELECT 1 FROM api_keys WHERE hash = ?");
    return !!this.keyLookup.get(hashKey(key));
  }

  /** Events are written once per finished run segment, in one transaction, so streaming never waits on disk. */
  appendEvents(runId: string, from: number, events: RunEvent[]): void {
    const stmt = this.db.prepare("INSERT OR REPLACE INTO run_events (run_id, seq, event) VALUES (?,?,?)");
    this.db.transaction(() => {
      events.forEach((e, i) => {
        stmt.run(runId, from + i, JSON.stringify(e));
      });
    })();
  }

  events(runId: string): RunEvent[] {
    return (
      this.db.prepare("SELECT event FROM run_events WHERE run_id = ? ORDER BY seq").all(runId) as Array<{
        event: string;
      }>
    ).map((r) => JSON.parse(r.event));
  }
}
