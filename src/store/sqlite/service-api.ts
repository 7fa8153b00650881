import type Database from "better-sqlite3";
import { newId } from "../../util/ids.js";
import { hashKey, newAppKey } from "../keys.js";
import type { AppKeyRecord, ServiceApiStore, ServiceRunRecord, UploadRecord } from "../service-api.js";
import { GroupCommit } from "./group-commit.js";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS app_keys (
  id TEXT PRIMARY KEY, app_id TEXT NOT NULL, hash TEXT NOT NULL UNIQUE, created_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS service_runs (
  run_id TEXT PRIMARY KEY, app_id TEXT NOT NULL, user_id TEXT NOT NULL, conversation_id TEXT, message_id TEXT,
  files TEXT NOT NULL DEFAULT '[]', created_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS uploads (
  id TEXT PRIMARY KEY, app_id TEXT NOT NULL, user_id TEXT NOT NULL, file TEXT NOT NULL, created_at INTEGER NOT NULL);
`;

/** The service API's tables on the shared SQLite connection. Synchronous underneath, like the other stores. */
export class SqliteServiceApiStore implements ServiceApiStore {
  constructor(
    readonly db: Database.Database,
    /** A /v1 run's record joins the group commit of the run's own writes. */
    private readonly group: GroupCommit = new GroupCommit(db),
  ) {
    db.exec(SCHEMA);
  }

  async createAppKey(appId: string): Promise<{ id: string; key: string }> {
    const id = newId();
    const key = newAppKey();
    this.db
      .prepare("INSERT INTO app_keys (id, app_id, hash, created_at) VALUES (?,?,?,?)")
      .run(id, appId, hashKey(key), Date.now());
    return { id, key };
  }
  async appOfKey(key: string): Promise<string | undefined> {
    const r = this.db.prepare("SELECT app_id FROM app_keys WHERE hash = ?").get(hashKey(key)) as
      | { app_id: string }
      | undefined;
    return r?.app_id;
  }
  async listAppKeys(appId?: string): Promise<AppKeyRecord[]> {
    const rows = (
      appId === undefined
        ? this.db.prepare("SELECT id, app_id, created_at FROM app_keys ORDER BY created_at, rowid").all()
        : this.db
            .prepare("SELECT id, app_id, created_at FROM app_keys WHERE app_id = ? ORDER BY created_at, rowid")
            .all(appId)
    ) as any[];
    return rows.map((r) => ({ id: r.id, appId: r.app_id, createdAt: r.created_at }));
  }
  async revokeAppKey(id: string): Promise<boolean> {
    return this.db.prepare("DELETE FROM app_keys WHERE id = ?").run(id).changes > 0;
  }

  async recordRun(r: ServiceRunRecord): Promise<void> {
    await this.group.write(() =>
      this.db
        .prepare(
          "INSERT INTO service_runs (run_id, app_id, user_id, conversation_id, message_id, files, created_at) VALUES (?,?,?,?,?,?,?)",
        )
        .run(
          r.runId,
          r.appId,
          r.user,
          r.conversationId ?? null,
          r.messageId ?? null,
          JSON.stringify(r.files ?? []),
          r.createdAt,
        ),
    );
  }
  async serviceRun(runId: string): Promise<ServiceRunRecord | undefined> {
    const r = this.db.prepare("SELECT * FROM service_runs WHERE run_id = ?").get(runId) as any;
    if (!r) return undefined;
    return {
      runId: r.run_id,
      appId: r.app_id,
      user: r.user_id,
      ...(r.conversation_id ? { conversationId: r.conversation_id } : {}),
      ...(r.message_id ? { messageId: r.message_id } : {}),
      files: JSON.parse(r.files),
      createdAt: r.created_at,
    };
  }

  async putUpload(u: UploadRecord): Promise<void> {
    this.db
      .prepare("INSERT INTO uploads (id, app_id, user_id, file, created_at) VALUES (?,?,?,?,?)")
      .run(u.id, u.appId, u.user, JSON.stringify(u.file), u.createdAt);
  }
  async getUpload(id: string): Promise<UploadRecord | undefined> {
    const r = this.db.prepare("SELECT * FROM uploads WHERE id = ?").get(id) as any;
    if (!r) return undefined;
    return { id: r.id, appId: r.app_id, user: r.user_id, file: JSON.parse(r.file), createdAt: r.created_at };
  }
}
