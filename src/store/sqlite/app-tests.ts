import type Database from "better-sqlite3";
import type { AppTestSettings, AppTestStore, GateOverrideRecord, TestCaseRecord } from "../app-tests.js";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS app_test_cases (
  app_id TEXT NOT NULL, id TEXT NOT NULL, name TEXT NOT NULL, spec TEXT NOT NULL, source_run_id TEXT,
  created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, PRIMARY KEY (app_id, id));
CREATE TABLE IF NOT EXISTS app_test_settings (
  app_id TEXT PRIMARY KEY, require_pass INTEGER NOT NULL, k INTEGER NOT NULL, min_pass_hat_k REAL NOT NULL,
  updated_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS app_test_overrides (
  id TEXT PRIMARY KEY, app_id TEXT NOT NULL, version INTEGER NOT NULL, reason TEXT NOT NULL, by_whom TEXT NOT NULL,
  failing TEXT NOT NULL, at INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS app_test_overrides_app ON app_test_overrides (app_id, at);
CREATE TABLE IF NOT EXISTS model_answer_cache (key TEXT PRIMARY KEY, answer TEXT NOT NULL, created_at INTEGER NOT NULL);
`;

export interface CaseRow {
  app_id: string;
  id: string;
  name: string;
  spec: string;
  source_run_id: string | null;
  created_at: number | string;
  updated_at: number | string;
}

export interface SettingsRow {
  app_id: string;
  require_pass: number | boolean;
  k: number;
  min_pass_hat_k: number | string;
  updated_at: number | string;
}

export interface OverrideRow {
  id: string;
  app_id: string;
  version: number;
  reason: string;
  by_whom: string;
  failing: string;
  at: number | string;
}

export const toCase = (r: CaseRow): TestCaseRecord => ({
  ...(JSON.parse(r.spec) as Pick<TestCaseRecord, "inputs" | "sys" | "expect" | "judge">),
  id: r.id,
  appId: r.app_id,
  name: r.name,
  ...(r.source_run_id !== null ? { sourceRunId: r.source_run_id } : {}),
  createdAt: Number(r.created_at),
  updatedAt: Number(r.updated_at),
});

/** The spec column: what the case runs with and expects (the rest has columns of its own). */
export const caseColumns = (r: TestCaseRecord): unknown[] => [
  r.appId,
  r.id,
  r.name,
  JSON.stringify({ inputs: r.inputs, sys: r.sys, expect: r.expect, judge: r.judge }),
  r.sourceRunId ?? null,
  r.createdAt,
  r.updatedAt,
];

export const toSettings = (r: SettingsRow): AppTestSettings => ({
  appId: r.app_id,
  requirePass: r.require_pass === true || r.require_pass === 1,
  k: Number(r.k),
  minPassHatK: Number(r.min_pass_hat_k),
  updatedAt: Number(r.updated_at),
});

export const toOverride = (r: OverrideRow): GateOverrideRecord => ({
  id: r.id,
  appId: r.app_id,
  version: Number(r.version),
  reason: r.reason,
  by: r.by_whom,
  failing: JSON.parse(r.failing) as string[],
  at: Number(r.at),
});

export const overrideColumns = (o: GateOverrideRecord): unknown[] => [
  o.id,
  o.appId,
  o.version,
  o.reason,
  o.by,
  JSON.stringify(o.failing),
  o.at,
];

/** App test cases, settings, overrides and cached model answers on the shared SQLite connection. */
export class SqliteAppTestStore implements AppTestStore {
  private stmts;

  constructor(readonly db: Database.Database) {
    db.exec(SCHEMA);
    this.stmts = {
      add: db.prepare(
        `INSERT INTO app_test_cases (app_id, id, name, spec, source_run_id, created_at, updated_at) VALUES (?,?,?,?,?,?,?)
         ON CONFLICT (app_id, id) DO NOTHING`,
      ),
      get: db.prepare("SELECT * FROM app_test_cases WHERE app_id = ? AND id = ?"),
      list: db.prepare("SELECT * FROM app_test_cases WHERE app_id = ? ORDER BY created_at, id"),
      update: db.prepare(
        "UPDATE app_test_cases SET name = ?, spec = ?, source_run_id = ?, created_at = ?, updated_at = ? WHERE app_id = ? AND id = ?",
      ),
      delete: db.prepare("DELETE FROM app_test_cases WHERE app_id = ? AND id = ?"),
      settings: db.prepare("SELECT * FROM app_test_settings WHERE app_id = ?"),
      putSettings: db.prepare(
        `INSERT INTO app_test_settings (app_id, require_pass, k, min_pass_hat_k, updated_at) VALUES (?,?,?,?,?)
         ON CONFLICT (app_id) DO UPDATE SET require_pass = excluded.require_pass, k = excluded.k,
           min_pass_hat_k = excluded.min_pass_hat_k, updated_at = excluded.updated_at`,
      ),
      addOverride: db.prepare(
        "INSERT INTO app_test_overrides (id, app_id, version, reason, by_whom, failing, at) VALUES (?,?,?,?,?,?,?)",
      ),
      overrides: db.prepare("SELECT * FROM app_test_overrides WHERE app_id = ? ORDER BY at DESC, id DESC"),
      answer: db.prepare("SELECT answer FROM model_answer_cache WHERE key = ?"),
      putAnswer: db.prepare(
        "INSERT INTO model_answer_cache (key, answer, created_at) VALUES (?,?,?) ON CONFLICT (key) DO NOTHING",
      ),
    };
  }

  async addCase(rec: TestCaseRecord): Promise<boolean> {
    return this.stmts.add.run(...caseColumns(rec)).changes > 0;
  }

  async getCase(appId: string, id: string): Promise<TestCaseRecord | undefined> {
    const r = this.stmts.get.get(appId, id) as CaseRow | undefined;
    return r ? toCase(r) : undefined;
  }

  async listCases(appId: string): Promise<TestCaseRecord[]> {
    return (this.stmts.list.all(appId) as CaseRow[]).map(toCase);
  }

  async updateCase(rec: TestCaseRecord): Promise<boolean> {
    const [appId, id, ...rest] = caseColumns(rec);
    return this.stmts.update.run(...rest, appId, id).changes > 0;
  }

  async deleteCase(appId: string, id: string): Promise<boolean> {
    return this.stmts.delete.run(appId, id).changes > 0;
  }

  async settings(appId: string): Promise<AppTestSettings | undefined> {
    const r = this.stmts.settings.get(appId) as SettingsRow | undefined;
    return r ? toSettings(r) : undefined;
  }

  async putSettings(s: AppTestSettings): Promise<void> {
    this.stmts.putSettings.run(s.appId, s.requirePass ? 1 : 0, s.k, s.minPassHatK, s.updatedAt);
  }

  async recordOverride(o: GateOverrideRecord): Promise<void> {
    this.stmts.addOverride.run(...overrideColumns(o));
  }

  async overrides(appId: string): Promise<GateOverrideRecord[]> {
    return (this.stmts.overrides.all(appId) as OverrideRow[]).map(toOverride);
  }

  async deleteApp(appId: string): Promise<void> {
    this.db.transaction(() => {
      for (const t of ["app_test_cases", "app_test_settings", "app_test_overrides"])
        this.db.prepare(`DELETE FROM ${t} WHERE app_id = ?`).run(appId);
    })();
  }

  async cachedAnswer(key: string): Promise<unknown | undefined> {
    const r = this.stmts.answer.get(key) as { answer: string } | undefined;
    return r ? JSON.parse(r.answer) : undefined;
  }

  async cacheAnswer(key: string, answer: unknown, at: number): Promise<void> {
    this.stmts.putAnswer.run(key, JSON.stringify(answer), at);
  }
}
