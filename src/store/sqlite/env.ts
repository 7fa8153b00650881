import type Database from "better-sqlite3";
import type { EnvRecord, EnvStore } from "../env.js";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS app_env (
  app_id TEXT NOT NULL, name TEXT NOT NULL, type TEXT NOT NULL, value TEXT, key_id TEXT, iv TEXT, tag TEXT,
  data TEXT, updated_at INTEGER NOT NULL, PRIMARY KEY (app_id, name));
`;

interface Row {
  app_id: string;
  name: string;
  type: EnvRecord["type"];
  value: string | null;
  key_id: string | null;
  iv: string | null;
  tag: string | null;
  data: string | null;
  updated_at: number;
}

export const toEnvRecord = (r: Row, parse: (v: string) => unknown = JSON.parse): EnvRecord => ({
  appId: r.app_id,
  name: r.name,
  type: r.type,
  ...(r.value !== null ? { value: parse(r.value) as string | number } : {}),
  ...(r.key_id !== null ? { sealed: { keyId: r.key_id, iv: r.iv!, tag: r.tag!, data: r.data! } } : {}),
  updatedAt: Number(r.updated_at),
});

/** The row's columns for a record: a plain value as JSON text, a secret as its sealed parts. */
export const envColumns = (r: EnvRecord): unknown[] => [
  r.appId,
  r.name,
  r.type,
  r.value === undefined ? null : JSON.stringify(r.value),
  r.sealed?.keyId ?? null,
  r.sealed?.iv ?? null,
  r.sealed?.tag ?? null,
  r.sealed?.data ?? null,
  r.updatedAt,
];

/** Environment variable values on the shared SQLite connection. */
export class SqliteEnvStore implements EnvStore {
  private stmts;

  constructor(readonly db: Database.Database) {
    db.exec(SCHEMA);
    this.stmts = {
      list: db.prepare("SELECT * FROM app_env WHERE app_id = ? ORDER BY name"),
      get: db.prepare("SELECT * FROM app_env WHERE app_id = ? AND name = ?"),
      put: db.prepare(
        `INSERT INTO app_env (app_id, name, type, value, key_id, iv, tag, data, updated_at) VALUES (?,?,?,?,?,?,?,?,?)
         ON CONFLICT (app_id, name) DO UPDATE SET type = excluded.type, value = excluded.value, key_id = excluded.key_id,
           iv = excluded.iv, tag = excluded.tag, data = excluded.data, updated_at = excluded.updated_at`,
      ),
      delete: db.prepare("DELETE FROM app_env WHERE app_id = ? AND name = ?"),
      deleteApp: db.prepare("DELETE FROM app_env WHERE app_id = ?"),
      secrets: db.prepare("SELECT * FROM app_env WHERE type = 'secret' ORDER BY app_id, name"),
      reseal: db.prepare(
        "UPDATE app_env SET key_id = ?, iv = ?, tag = ?, data = ? WHERE app_id = ? AND name = ? AND type = 'secret'",
      ),
    };
  }

  async list(appId: string): Promise<EnvRecord[]> {
    return (this.stmts.list.all(appId) as Row[]).map((r) => toEnvRecord(r));
  }

  async get(appId: string, name: string): Promise<EnvRecord | undefined> {
    const r = this.stmts.get.get(appId, name) as Row | undefined;
    return r ? toEnvRecord(r) : undefined;
  }

  async put(rec: EnvRecord): Promise<void> {
    this.stmts.put.run(...envColumns(rec));
  }

  async delete(appId: string, name: string): Promise<boolean> {
    return this.stmts.delete.run(appId, name).changes > 0;
  }

  async deleteApp(appId: string): Promise<void> {
    this.stmts.deleteApp.run(appId);
  }

  async secrets(): Promise<EnvRecord[]> {
    return (this.stmts.secrets.all() as Row[]).map((r) => toEnvRecord(r));
  }

  async reseal(recs: EnvRecord[]): Promise<void> {
    this.db.transaction(() => {
      for (const r of recs) {
        if (!r.sealed) continue;
        const s = r.sealed;
        this.stmts.reseal.run(s.keyId, s.iv, s.tag, s.data, r.appId, r.name);
      }
    })();
  }
}
