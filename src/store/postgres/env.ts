import type { EnvRecord, EnvStore } from "../env.js";
import { envColumns, toEnvRecord } from "../sqlite/env.js";
import type { PgDatabase } from "./database.js";

const COLUMNS = "app_id, name, type, value, key_id, iv, tag, data, updated_at";

/** Environment variable values on PostgreSQL (migration 9); plain values in a `json` column, secrets sealed. */
export class PostgresEnvStore implements EnvStore {
  constructor(private readonly db: PgDatabase) {}

  private async rows(where: string, args: unknown[]): Promise<EnvRecord[]> {
    const rows = await this.db.query<Parameters<typeof toEnvRecord>[0]>(
      `SELECT ${COLUMNS} FROM app_env WHERE ${where} ORDER BY app_id, name`,
      args,
    );
    return rows.map((r) => toEnvRecord(r));
  }

  list(appId: string): Promise<EnvRecord[]> {
    return this.rows("app_id = $1", [appId]);
  }

  async get(appId: string, name: string): Promise<EnvRecord | undefined> {
    return (await this.rows("app_id = $1 AND name = $2", [appId, name]))[0];
  }

  async put(rec: EnvRecord): Promise<void> {
    await this.db.query(
      `INSERT INTO app_env (${COLUMNS}) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9)
       ON CONFLICT (app_id, name) DO UPDATE SET type = excluded.type, value = excluded.value, key_id = excluded.key_id,
         iv = excluded.iv, tag = excluded.tag, data = excluded.data, updated_at = excluded.updated_at`,
      envColumns(rec),
    );
  }

  async delete(appId: string, name: string): Promise<boolean> {
    const rows = await this.db.query("DELETE FROM app_env WHERE app_id = $1 AND name = $2 RETURNING name", [
      appId,
      name,
    ]);
    return rows.length > 0;
  }

  async deleteApp(appId: string): Promise<void> {
    await this.db.query("DELETE FROM app_env WHERE app_id = $1", [appId]);
  }

  secrets(): Promise<EnvRecord[]> {
    return this.rows("type = 'secret'", []);
  }

  async reseal(recs: EnvRecord[]): Promise<void> {
    await this.db.tx(async (q) => {
      for (const r of recs) {
        if (!r.sealed) continue;
        const s = r.sealed;
        await q(
          "UPDATE app_env SET key_id = $1, iv = $2, tag = $3, data = $4 WHERE app_id = $5 AND name = $6 AND type = 'secret'",
          [s.keyId, s.iv, s.tag, s.data, r.appId, r.name],
        );
      }
    });
  }
}
