import { newId } from "../../util/ids.js";
import { hashKey, newAppKey } from "../keys.js";
import type { AppKeyRecord, ServiceApiStore, ServiceRunRecord, UploadRecord } from "../service-api.js";
import type { PgDatabase } from "./database.js";
import { json } from "./json.js";

/** The Dify service API's app keys (hashes only), end-user runs and uploads on PostgreSQL. */
export class PostgresServiceApiStore implements ServiceApiStore {
  constructor(private readonly db: PgDatabase) {}

  async createAppKey(appId: string): Promise<{ id: string; key: string }> {
    const id = newId();
    const key = newAppKey();
    await this.db.query("INSERT INTO app_keys (id, app_id, hash, created_at) VALUES ($1, $2, $3, $4)", [
      id,
      appId,
      hashKey(key),
      Date.now(),
    ]);
    return { id, key };
  }
  async appOfKey(key: string): Promise<string | undefined> {
    const [row] = await this.db.query<{ app_id: string }>(
      "SELECT app_id FROM app_keys WHERE hash = $1",
      [hashKey(key)],
      "weft_app_of_key",
    );
    return row?.app_id;
  }
  async listAppKeys(appId?: string): Promise<AppKeyRecord[]> {
    const rows = await this.db.query<{ id: string; app_id: string; created_at: number }>(
      "SELECT id, app_id, created_at FROM app_keys WHERE ($1::text IS NULL OR app_id = $1) ORDER BY created_at, seq",
      [appId ?? null],
    );
    return rows.map((r) => ({ id: r.id, appId: r.app_id, createdAt: r.created_at }));
  }
  async revokeAppKey(id: string): Promise<boolean> {
    return (await this.db.query("DELETE FROM app_keys WHERE id = $1 RETURNING id", [id])).length > 0;
  }

  async recordRun(r: ServiceRunRecord): Promise<void> {
    await this.db.query(
      "INSERT INTO service_runs (run_id, app_id, user_id, conversation_id, message_id, files, created_at) VALUES ($1,$2,$3,$4,$5,$6,$7)",
      [
        r.runId,
        r.appId,
        JSON.stringify(r.user),
        r.conversationId ?? null,
        r.messageId ?? null,
        JSON.stringify(r.files ?? []),
        r.createdAt,
      ],
    );
  }
  async serviceRun(runId: string): Promise<ServiceRunRecord | undefined> {
    const [r] = await this.db.query<{
      run_id: string;
      app_id: string;
      user_id: string;
      conversation_id: string | null;
      message_id: string | null;
      files: string;
      created_at: number;
    }>(
      "SELECT run_id, app_id, user_id, conversation_id, message_id, files, created_at FROM service_runs WHERE run_id = $1",
      [runId],
    );
    if (!r) return undefined;
    return {
      runId: r.run_id,
      appId: r.app_id,
      user: json(r.user_id),
      ...(r.conversation_id ? { conversationId: r.conversation_id } : {}),
      ...(r.message_id ? { messageId: r.message_id } : {}),
      files: json(r.files),
      createdAt: r.created_at,
    };
  }

  async putUpload(u: UploadRecord): Promise<void> {
    await this.db.query("INSERT INTO uploads (id, app_id, user_id, file, created_at) VALUES ($1,$2,$3,$4,$5)", [
      u.id,
      u.appId,
      JSON.stringify(u.user),
      JSON.stringify(u.file),
      u.createdAt,
    ]);
  }
  async getUpload(id: string): Promise<UploadRecord | undefined> {
    const [r] = await this.db.query<{ id: string; app_id: string; user_id: string; file: string; created_at: number }>(
      "SELECT id, app_id, user_id, file, created_at FROM uploads WHERE id = $1",
      [id],
    );
    return r
      ? { id: r.id, appId: r.app_id, user: json(r.user_id), file: json(r.file), createdAt: r.created_at }
      : undefined;
  }
}
