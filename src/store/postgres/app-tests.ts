import type { AppTestSettings, AppTestStore, GateOverrideRecord, TestCaseRecord } from "../app-tests.js";
import {
  type CaseRow,
  caseColumns,
  type OverrideRow,
  overrideColumns,
  type SettingsRow,
  toCase,
  toOverride,
  toSettings,
} from "../sqlite/app-tests.js";
import type { PgDatabase } from "./database.js";

const CASE_COLUMNS = "app_id, id, name, spec, source_run_id, created_at, updated_at";

/** App test cases, settings, overrides and cached model answers on PostgreSQL (migration 14). */
export class PostgresAppTestStore implements AppTestStore {
  constructor(private readonly db: PgDatabase) {}

  async addCase(rec: TestCaseRecord): Promise<boolean> {
    const rows = await this.db.query(
      `INSERT INTO app_test_cases (${CASE_COLUMNS}) VALUES ($1,$2,$3,$4,$5,$6,$7)
       ON CONFLICT (app_id, id) DO NOTHING RETURNING id`,
      caseColumns(rec),
    );
    return rows.length > 0;
  }

  async getCase(appId: string, id: string): Promise<TestCaseRecord | undefined> {
    const rows = await this.db.query<CaseRow>(
      `SELECT ${CASE_COLUMNS} FROM app_test_cases WHERE app_id = $1 AND id = $2`,
      [appId, id],
    );
    return rows[0] ? toCase(rows[0]) : undefined;
  }

  async listCases(appId: string): Promise<TestCaseRecord[]> {
    const rows = await this.db.query<CaseRow>(
      `SELECT ${CASE_COLUMNS} FROM app_test_cases WHERE app_id = $1 ORDER BY created_at, id`,
      [appId],
    );
    return rows.map(toCase);
  }

  async updateCase(rec: TestCaseRecord): Promise<boolean> {
    const [appId, id, ...rest] = caseColumns(rec);
    const rows = await this.db.query(
      `UPDATE app_test_cases SET name = $1, spec = $2, source_run_id = $3, created_at = $4, updated_at = $5
       WHERE app_id = $6 AND id = $7 RETURNING id`,
      [...rest, appId, id],
    );
    return rows.length > 0;
  }

  async deleteCase(appId: string, id: string): Promise<boolean> {
    const rows = await this.db.query("DELETE FROM app_test_cases WHERE app_id = $1 AND id = $2 RETURNING id", [
      appId,
      id,
    ]);
    return rows.length > 0;
  }

  async settings(appId: string): Promise<AppTestSettings | undefined> {
    const rows = await this.db.query<SettingsRow>(
      "SELECT app_id, require_pass, k, min_pass_hat_k, updated_at FROM app_test_settings WHERE app_id = $1",
      [appId],
    );
    return rows[0] ? toSettings(rows[0]) : undefined;
  }

  async putSettings(s: AppTestSettings): Promise<void> {
    await this.db.query(
      `INSERT INTO app_test_settings (app_id, require_pass, k, min_pass_hat_k, updated_at) VALUES ($1,$2,$3,$4,$5)
       ON CONFLICT (app_id) DO UPDATE SET require_pass = excluded.require_pass, k = excluded.k,
         min_pass_hat_k = excluded.min_pass_hat_k, updated_at = excluded.updated_at`,
      [s.appId, s.requirePass, s.k, s.minPassHatK, s.updatedAt],
    );
  }

  async recordOverride(o: GateOverrideRecord): Promise<void> {
    await this.db.query(
      "INSERT INTO app_test_overrides (id, app_id, version, reason, by_whom, failing, at) VALUES ($1,$2,$3,$4,$5,$6,$7)",
      overrideColumns(o),
    );
  }

  async overrides(appId: string): Promise<GateOverrideRecord[]> {
    const rows = await this.db.query<OverrideRow>(
      "SELECT id, app_id, version, reason, by_whom, failing, at FROM app_test_overrides WHERE app_id = $1 ORDER BY at DESC, id DESC",
      [appId],
    );
    return rows.map(toOverride);
  }

  async deleteApp(appId: string): Promise<void> {
    await this.db.tx(async (q) => {
      for (const t of ["app_test_cases", "app_test_settings", "app_test_overrides"])
        await q(`DELETE FROM ${t} WHERE app_id = $1`, [appId]);
    });
  }

  async cachedAnswer(key: string): Promise<unknown | undefined> {
    const rows = await this.db.query<{ answer: string }>("SELECT answer FROM model_answer_cache WHERE key = $1", [key]);
    return rows[0] ? JSON.parse(rows[0].answer) : undefined;
  }

  async cacheAnswer(key: string, answer: unknown, at: number): Promise<void> {
    await this.db.query(
      "INSERT INTO model_answer_cache (key, answer, created_at) VALUES ($1,$2,$3) ON CONFLICT (key) DO NOTHING",
      [key, JSON.stringify(answer), at],
    );
  }
}
