import type Database from "better-sqlite3";
import { ulid } from "ulid";
import type { RunEvent } from "../../engine/events.js";
import type { AppMode, Workflow } from "../../ir/workflow.js";
import type {
  ApiKeyRecord,
  AppRecord,
  AppStore,
  ChatMessageRecord,
  EventBatch,
  VersionRecord,
  VersionSource,
} from "../apps.js";
import { hashKey, newApiKey } from "../keys.js";

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

/**
 * The server's tables (apps, workflow versions, API keys, chat messages, run event logs) on the same
 * connection as the run store. Synchronous underneath, like `SqliteRunStore`.
 */
export class SqliteAppStore implements AppStore {
  private stmts;

  constructor(readonly db: Database.Database) {
    db.exec(SCHEMA);
    this.stmts = {
      insertApp: db.prepare(
        "INSERT INTO apps (id, name, mode, description, created_at, updated_at) VALUES (?,?,?,?,?,?)",
      ),
      getApp: db.prepare("SELECT * FROM apps WHERE id = ?"),
      insertVersion: db.prepare(
        "INSERT INTO app_versions (app_id, version, workflow, source, note, created_at) VALUES (?,?,?,?,?,?)",
      ),
      version: db.prepare("SELECT * FROM app_versions WHERE app_id = ? AND version = ?"),
      current: db.prepare("SELECT * FROM app_versions WHERE app_id = ? ORDER BY version DESC LIMIT 1"),
      keyLookup: db.prepare("SELECT 1 FROM api_keys WHERE hash = ?"),
      putEvent: db.prepare("INSERT OR REPLACE INTO run_events (run_id, seq, event) VALUES (?,?,?)"),
      events: db.prepare("SELECT event FROM run_events WHERE run_id = ? AND seq > ? ORDER BY seq"),
    };
  }

  private appNow(id: string): AppRecord | undefined {
    const r = this.stmts.getApp.get(id);
    return r ? toApp(r) : undefined;
  }

  private versionNow(appId: string, version: number): VersionRecord | undefined {
    const r = this.stmts.version.get(appId, version);
    return r ? toVersion(r) : undefined;
  }

  async createApp(
    a: { name: string; mode: AppMode; description?: string },
    workflow: Workflow,
    source: VersionSource,
  ): Promise<{ app: AppRecord; version: VersionRecord }> {
    const id = ulid();
    const now = Date.now();
    this.db.transaction(() => {
      this.stmts.insertApp.run(id, a.name, a.mode, a.description ?? "", now, now);
      this.stmts.insertVersion.run(id, 1, JSON.stringify(workflow), source, "", now);
    })();
    return { app: this.appNow(id)!, version: this.versionNow(id, 1)! };
  }

  async listApps(): Promise<AppRecord[]> {
    return this.db.prepare("SELECT * FROM apps ORDER BY created_at DESC, rowid DESC").all().map(toApp);
  }

  async getApp(id: string): Promise<AppRecord | undefined> {
    return this.appNow(id);
  }

  async deleteApp(id: string): Promise<boolean> {
    return this.db.transaction(() => {
      this.db.prepare("DELETE FROM app_versions WHERE app_id = ?").run(id);
      this.db.prepare("DELETE FROM chat_messages WHERE app_id = ?").run(id);
      return this.db.prepare("DELETE FROM apps WHERE id = ?").run(id).changes > 0;
    })();
  }

  async addVersion(appId: string, wf: Workflow, source: VersionSource, note = ""): Promise<VersionRecord> {
    const now = Date.now();
    const version = this.db.transaction(() => {
      const { v } = this.db
        .prepare("SELECT COALESCE(MAX(version), 0) AS v FROM app_versions WHERE app_id = ?")
        .get(appId) as { v: number };
      this.stmts.insertVersion.run(appId, v + 1, JSON.stringify(wf), source, note, now);
      this.db.prepare("UPDATE apps SET updated_at = ?, name = ? WHERE id = ?").run(now, wf.name, appId);
      return v + 1;
    })();
    return this.versionNow(appId, version)!;
  }

  async current(appId: string): Promise<VersionRecord | undefined> {
    const r = this.stmts.current.get(appId);
    return r ? toVersion(r) : undefined;
  }

  async version(appId: string, version: number): Promise<VersionRecord | undefined> {
    return this.versionNow(appId, version);
  }

  async versions(appId: string): Promise<VersionRecord[]> {
    return this.db.prepare("SELECT * FROM app_versions WHERE app_id = ? ORDER BY version").all(appId).map(toVersion);
  }

  async addMessage(appId: string, role: "user" | "assistant", text: string, version?: number): Promise<void> {
    this.db
      .prepare("INSERT INTO chat_messages (app_id, role, text, version, created_at) VALUES (?,?,?,?,?)")
      .run(appId, role, text, version ?? null, Date.now());
  }

  async messages(appId: string): Promise<ChatMessageRecord[]> {
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

  async createKey(name = "default"): Promise<{ id: string; key: string }> {
    const id = ulid();
    const key = newApiKey();
    this.db
      .prepare("INSERT INTO api_keys (id, name, hash, created_at) VALUES (?,?,?,?)")
      .run(id, name, hashKey(key), Date.now());
    return { id, key };
  }

  async listKeys(): Promise<ApiKeyRecord[]> {
    return (
      this.db
        .prepare("SELECT id, name, created_at, last_used_at FROM api_keys ORDER BY created_at, rowid")
        .all() as any[]
    ).map((r) => ({
      id: r.id,
      name: r.name,
      createdAt: r.created_at,
      lastUsedAt: r.last_used_at ?? undefined,
    }));
  }

  async revokeKey(id: string): Promise<boolean> {
    return this.db.prepare("DELETE FROM api_keys WHERE id = ?").run(id).changes > 0;
  }

  async verifyKey(key: string): Promise<boolean> {
    return !!this.stmts.keyLookup.get(hashKey(key));
  }

  async appendEvents(batches: EventBatch[]): Promise<void> {
    this.db.transaction(() => {
      for (const b of batches) {
        b.events.forEach((e, i) => {
          this.stmts.putEvent.run(b.runId, b.from + i, JSON.stringify(e));
        });
      }
    })();
  }

  async events(runId: string, after = -1): Promise<RunEvent[]> {
    return (this.stmts.events.all(runId, after) as Array<{ event: string }>).map((r) => JSON.parse(r.event));
  }
}
