import { createHash, randomBytes } from "node:crypto";
import type Database from "better-sqlite3";
import { ulid } from "ulid";
import type { RunEvent } from "../engine/events.js";
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
`;

export interface AppRecord {
  id: string;
  name: string;
  mode: AppMode;
  description: string;
  createdAt: number;
  updatedAt: number;
}

export type VersionSource = "create" | "import" | "edit" | "agent" | "sample";

export interface VersionRecord {
  appId: string;
  version: number;
  workflow: Workflow;
  source: VersionSource;
  note: string;
  createdAt: number;
}

export interface ChatMessageRecord {
  seq: number;
  role: "user" | "assistant";
  text: string;
  version?: number;
  createdAt: number;
}

export interface ApiKeyRecord {
  id: string;
  name: string;
  createdAt: number;
  lastUsedAt?: number;
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
  createdAt: r.created_at,
});

export class AppStore {
  constructor(readonly db: Database.Database) {
    db.exec(SCHEMA);
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
  ): void {
    this.db
      .prepare("INSERT INTO app_versions (app_id, version, workflow, source, note, created_at) VALUES (?,?,?,?,?,?)")
      .run(appId, version, JSON.stringify(wf), source, note, now);
  }

  /** Append a version; the app's name follows the workflow's. */
  addVersion(appId: string, wf: Workflow, source: VersionSource, note = ""): VersionRecord {
    const now = Date.now();
    const version = this.db.transaction(() => {
      const { v } = this.db
        .prepare("SELECT COALESCE(MAX(version), 0) AS v FROM app_versions WHERE app_id = ?")
        .get(appId) as { v: number };
      this.insertVersion(appId, v + 1, wf, source, note, now);
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

  addMessage(appId: string, role: "user" | "assistant", text: string, version?: number): void {
    this.db
      .prepare("INSERT INTO chat_messages (app_id, role, text, version, created_at) VALUES (?,?,?,?,?)")
      .run(appId, role, text, version ?? null, Date.now());
  }

  messages(appId: string): ChatMessageRecord[] {
    return (this.db.prepare("SELECT * FROM chat_messages WHERE app_id = ? ORDER BY seq").all(appId) as any[]).map(
      (r) => ({
        seq: r.seq,
        role: r.role,
        text: r.text,
        version: r.version ?? undefined,
        createdAt: r.created_at,
      }),
    );
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
