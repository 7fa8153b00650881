import type Database from "better-sqlite3";
import { ulid } from "ulid";
import { hashKey, newAppKey } from "../keys.js";
import type {
  AppKeyRecord,
  ConversationRecord,
  ConversationSort,
  Page,
  ServiceApiStore,
  ServiceMessageRecord,
  ServiceRunRecord,
  UploadRecord,
} from "../service-api.js";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS app_keys (
  id TEXT PRIMARY KEY, app_id TEXT NOT NULL, hash TEXT NOT NULL UNIQUE, created_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS service_runs (
  run_id TEXT PRIMARY KEY, app_id TEXT NOT NULL, user_id TEXT NOT NULL, conversation_id TEXT, message_id TEXT,
  created_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS conversations (
  id TEXT PRIMARY KEY, app_id TEXT NOT NULL, user_id TEXT NOT NULL, name TEXT NOT NULL, inputs TEXT NOT NULL,
  variables TEXT NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS conversations_user ON conversations(app_id, user_id, updated_at);
CREATE TABLE IF NOT EXISTS service_messages (
  id TEXT PRIMARY KEY, conversation_id TEXT NOT NULL, app_id TEXT NOT NULL, user_id TEXT NOT NULL, run_id TEXT NOT NULL,
  query TEXT NOT NULL, answer TEXT NOT NULL, inputs TEXT NOT NULL, files TEXT NOT NULL, status TEXT NOT NULL,
  error TEXT, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS service_messages_conversation ON service_messages(conversation_id, created_at, id);
CREATE TABLE IF NOT EXISTS uploads (
  id TEXT PRIMARY KEY, app_id TEXT NOT NULL, user_id TEXT NOT NULL, file TEXT NOT NULL, created_at INTEGER NOT NULL);
`;

const toConversation = (r: any): ConversationRecord => ({
  id: r.id,
  appId: r.app_id,
  user: r.user_id,
  name: r.name,
  inputs: JSON.parse(r.inputs),
  variables: JSON.parse(r.variables),
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const toMessage = (r: any): ServiceMessageRecord => ({
  id: r.id,
  conversationId: r.conversation_id,
  appId: r.app_id,
  user: r.user_id,
  runId: r.run_id,
  query: r.query,
  answer: r.answer,
  inputs: JSON.parse(r.inputs),
  files: JSON.parse(r.files),
  status: r.status,
  ...(r.error !== null && r.error !== undefined ? { error: r.error } : {}),
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** Columns a patch may set, so no caller-supplied name ever reaches the SQL text. */
const CONVERSATION_COLUMNS = { name: "name", variables: "variables", updatedAt: "updated_at" } as const;
const MESSAGE_COLUMNS = { answer: "answer", status: "status", error: "error", updatedAt: "updated_at" } as const;

function patchSql(
  patch: Record<string, unknown>,
  columns: Record<string, string>,
  encode: (field: string, v: unknown) => unknown,
): { sets: string; values: unknown[] } {
  const fields = Object.keys(patch).filter((k) => k in columns);
  return {
    sets: fields.map((f) => `${columns[f]} = ?`).join(", "),
    values: fields.map((f) => encode(f, patch[f])),
  };
}

/** The service API's tables on the shared SQLite connection. Synchronous underneath, like the other stores. */
export class SqliteServiceApiStore implements ServiceApiStore {
  constructor(readonly db: Database.Database) {
    db.exec(SCHEMA);
  }

  async createAppKey(appId: string): Promise<{ id: string; key: string }> {
    const id = ulid();
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
        ? this.db.prepare("SELECT id, app_id, created_at FROM app_keys ORDER BY created_at, id").all()
        : this.db
            .prepare("SELECT id, app_id, created_at FROM app_keys WHERE app_id = ? ORDER BY created_at, id")
            .all(appId)
    ) as any[];
    return rows.map((r) => ({ id: r.id, appId: r.app_id, createdAt: r.created_at }));
  }
  async revokeAppKey(id: string): Promise<boolean> {
    return this.db.prepare("DELETE FROM app_keys WHERE id = ?").run(id).changes > 0;
  }

  async recordRun(r: ServiceRunRecord): Promise<void> {
    this.db
      .prepare(
        "INSERT INTO service_runs (run_id, app_id, user_id, conversation_id, message_id, created_at) VALUES (?,?,?,?,?,?)",
      )
      .run(r.runId, r.appId, r.user, r.conversationId ?? null, r.messageId ?? null, r.createdAt);
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
      createdAt: r.created_at,
    };
  }

  async createConversation(c: ConversationRecord): Promise<void> {
    this.db
      .prepare(
        "INSERT INTO conversations (id, app_id, user_id, name, inputs, variables, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?)",
      )
      .run(
        c.id,
        c.appId,
        c.user,
        c.name,
        JSON.stringify(c.inputs),
        JSON.stringify(c.variables),
        c.createdAt,
        c.updatedAt,
      );
  }
  async getConversation(id: string): Promise<ConversationRecord | undefined> {
    const r = this.db.prepare("SELECT * FROM conversations WHERE id = ?").get(id);
    return r ? toConversation(r) : undefined;
  }
  async listConversations(
    appId: string,
    user: string,
    o: { lastId?: string; limit: number; sort?: ConversationSort },
  ): Promise<Page<ConversationRecord> | undefined> {
    const sort = o.sort ?? "-updated_at";
    const column = sort.endsWith("created_at") ? "created_at" : "updated_at";
    const desc = sort.startsWith("-");
    const cmp = desc ? "<" : ">";
    const order = `ORDER BY ${column} ${desc ? "DESC" : "ASC"}, id ${desc ? "DESC" : "ASC"}`;
    let rows: any[];
    if (o.lastId !== undefined) {
      const last = this.db
        .prepare(`SELECT ${column} AS t FROM conversations WHERE id = ? AND app_id = ? AND user_id = ?`)
        .get(o.lastId, appId, user) as { t: number } | undefined;
      if (!last) return undefined;
      rows = this.db
        .prepare(
          `SELECT * FROM conversations WHERE app_id = ? AND user_id = ? AND (${column} ${cmp} ? OR (${column} = ? AND id ${cmp} ?)) ${order} LIMIT ?`,
        )
        .all(appId, user, last.t, last.t, o.lastId, o.limit + 1) as any[];
    } else {
      rows = this.db
        .prepare(`SELECT * FROM conversations WHERE app_id = ? AND user_id = ? ${order} LIMIT ?`)
        .all(appId, user, o.limit + 1) as any[];
    }
    return { data: rows.slice(0, o.limit).map(toConversation), hasMore: rows.length > o.limit };
  }
  async updateConversation(
    id: string,
    patch: Partial<Pick<ConversationRecord, "name" | "variables" | "updatedAt">>,
  ): Promise<void> {
    const { sets, values } = patchSql(patch, CONVERSATION_COLUMNS, (f, v) =>
      f === "variables" ? JSON.stringify(v) : v,
    );
    if (sets) this.db.prepare(`UPDATE conversations SET ${sets} WHERE id = ?`).run(...values, id);
  }
  async deleteConversation(id: string): Promise<boolean> {
    return this.db.transaction(() => {
      this.db.prepare("DELETE FROM service_messages WHERE conversation_id = ?").run(id);
      return this.db.prepare("DELETE FROM conversations WHERE id = ?").run(id).changes > 0;
    })();
  }

  async addMessage(m: ServiceMessageRecord): Promise<void> {
    this.db
      .prepare(
        `INSERT INTO service_messages (id, conversation_id, app_id, user_id, run_id, query, answer, inputs, files, status,
           error, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)`,
      )
      .run(
        m.id,
        m.conversationId,
        m.appId,
        m.user,
        m.runId,
        m.query,
        m.answer,
        JSON.stringify(m.inputs),
        JSON.stringify(m.files),
        m.status,
        m.error ?? null,
        m.createdAt,
        m.updatedAt,
      );
  }
  async getMessage(id: string): Promise<ServiceMessageRecord | undefined> {
    const r = this.db.prepare("SELECT * FROM service_messages WHERE id = ?").get(id);
    return r ? toMessage(r) : undefined;
  }
  async updateMessage(
    id: string,
    patch: Partial<Pick<ServiceMessageRecord, "answer" | "status" | "error" | "updatedAt">>,
  ): Promise<void> {
    const { sets, values } = patchSql(patch, MESSAGE_COLUMNS, (_f, v) => v ?? null);
    if (sets) this.db.prepare(`UPDATE service_messages SET ${sets} WHERE id = ?`).run(...values, id);
  }
  async listMessages(
    conversationId: string,
    o: { firstId?: string; limit: number },
  ): Promise<Page<ServiceMessageRecord> | undefined> {
    let rows: any[];
    if (o.firstId !== undefined) {
      const first = this.db
        .prepare("SELECT created_at AS t FROM service_messages WHERE id = ? AND conversation_id = ?")
        .get(o.firstId, conversationId) as { t: number } | undefined;
      if (!first) return undefined;
      rows = this.db
        .prepare(
          `SELECT * FROM service_messages WHERE conversation_id = ? AND (created_at < ? OR (created_at = ? AND id < ?))
             ORDER BY created_at DESC, id DESC LIMIT ?`,
        )
        .all(conversationId, first.t, first.t, o.firstId, o.limit + 1) as any[];
    } else {
      rows = this.db
        .prepare("SELECT * FROM service_messages WHERE conversation_id = ? ORDER BY created_at DESC, id DESC LIMIT ?")
        .all(conversationId, o.limit + 1) as any[];
    }
    return { data: rows.slice(0, o.limit).reverse().map(toMessage), hasMore: rows.length > o.limit };
  }
  async conversationMessages(conversationId: string): Promise<ServiceMessageRecord[]> {
    return this.db
      .prepare("SELECT * FROM service_messages WHERE conversation_id = ? ORDER BY created_at, id")
      .all(conversationId)
      .map(toMessage);
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
