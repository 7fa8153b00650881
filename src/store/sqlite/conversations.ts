import type Database from "better-sqlite3";
import { newId } from "../../util/ids.js";
import type {
  ConversationMessage,
  ConversationRecord,
  ConversationSort,
  ConversationStore,
  NewConversation,
  Page,
} from "../conversations.js";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS conversations (
  id TEXT PRIMARY KEY, app_id TEXT NOT NULL, variables TEXT NOT NULL, dialogue_count INTEGER NOT NULL,
  created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
  user_id TEXT NOT NULL DEFAULT '', name TEXT NOT NULL DEFAULT '', inputs TEXT NOT NULL DEFAULT '{}');
CREATE INDEX IF NOT EXISTS conversations_app ON conversations(app_id, created_at);
CREATE TABLE IF NOT EXISTS conversation_messages (
  id TEXT PRIMARY KEY, conversation_id TEXT NOT NULL, app_id TEXT NOT NULL, user_id TEXT NOT NULL, run_id TEXT NOT NULL,
  query TEXT NOT NULL, answer TEXT NOT NULL, inputs TEXT NOT NULL, files TEXT NOT NULL, status TEXT NOT NULL,
  error TEXT, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS conversation_messages_conversation ON conversation_messages(conversation_id, created_at, id);
`;

/** Columns added since the table first shipped (studio conversations had no end user, name or inputs). */
const ADDED_COLUMNS: Array<[string, string]> = [
  ["user_id", "TEXT NOT NULL DEFAULT ''"],
  ["name", "TEXT NOT NULL DEFAULT ''"],
  ["inputs", "TEXT NOT NULL DEFAULT '{}'"],
];

interface Row {
  id: string;
  app_id: string;
  user_id: string;
  name: string;
  inputs: string;
  variables: string;
  dialogue_count: number;
  created_at: number;
  updated_at: number;
}

const toRecord = (r: Row): ConversationRecord => ({
  id: r.id,
  appId: r.app_id,
  user: r.user_id,
  name: r.name,
  inputs: JSON.parse(r.inputs),
  variables: JSON.parse(r.variables),
  dialogueCount: r.dialogue_count,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const toMessage = (r: any): ConversationMessage => ({
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
const MESSAGE_COLUMNS = { answer: "answer", status: "status", error: "error", updatedAt: "updated_at" } as const;

/** Conversations and their messages on the shared SQLite connection. Synchronous underneath, like `SqliteRunStore`. */
export class SqliteConversationStore implements ConversationStore {
  constructor(readonly db: Database.Database) {
    db.exec(SCHEMA);
    const have = new Set(
      (db.prepare("PRAGMA table_info(conversations)").all() as Array<{ name: string }>).map((c) => c.name),
    );
    for (const [name, type] of ADDED_COLUMNS)
      if (!have.has(name)) db.exec(`ALTER TABLE conversations ADD COLUMN ${name} ${type}`);
    db.exec("CREATE INDEX IF NOT EXISTS conversations_user ON conversations(app_id, user_id, updated_at)");
  }

  async create(appId: string, o: NewConversation = {}): Promise<ConversationRecord> {
    const id = newId();
    const now = Date.now();
    this.db
      .prepare(
        `INSERT INTO conversations (id, app_id, user_id, name, inputs, variables, dialogue_count, created_at, updated_at)
         VALUES (?,?,?,?,?,?,?,?,?)`,
      )
      .run(id, appId, o.user ?? "", o.name ?? "", JSON.stringify(o.inputs ?? {}), "{}", 0, now, now);
    return (await this.get(id))!;
  }

  async get(id: string): Promise<ConversationRecord | undefined> {
    const r = this.db.prepare("SELECT * FROM conversations WHERE id = ?").get(id) as Row | undefined;
    return r ? toRecord(r) : undefined;
  }

  async list(
    appId: string,
    user: string,
    o: { lastId?: string; limit: number; sort?: ConversationSort },
  ): Promise<Page<ConversationRecord> | undefined> {
    const sort = o.sort ?? "-updated_at";
    const column = sort.endsWith("created_at") ? "created_at" : "updated_at";
    const desc = sort.startsWith("-");
    const cmp = desc ? "<" : ">";
    const order = `ORDER BY ${column} ${desc ? "DESC" : "ASC"}, id ${desc ? "DESC" : "ASC"}`;
    let rows: Row[];
    if (o.lastId !== undefined) {
      const last = this.db
        .prepare(`SELECT ${column} AS t FROM conversations WHERE id = ? AND app_id = ? AND user_id = ?`)
        .get(o.lastId, appId, user) as { t: number } | undefined;
      if (!last) return undefined;
      rows = this.db
        .prepare(
          `SELECT * FROM conversations WHERE app_id = ? AND user_id = ?
             AND (${column} ${cmp} ? OR (${column} = ? AND id ${cmp} ?)) ${order} LIMIT ?`,
        )
        .all(appId, user, last.t, last.t, o.lastId, o.limit + 1) as Row[];
    } else {
      rows = this.db
        .prepare(`SELECT * FROM conversations WHERE app_id = ? AND user_id = ? ${order} LIMIT ?`)
        .all(appId, user, o.limit + 1) as Row[];
    }
    return { data: rows.slice(0, o.limit).map(toRecord), hasMore: rows.length > o.limit };
  }

  async finishTurn(id: string, variables: Record<string, unknown>): Promise<void> {
    this.db
      .prepare(
        "UPDATE conversations SET variables = ?, dialogue_count = dialogue_count + 1, updated_at = ? WHERE id = ?",
      )
      .run(JSON.stringify(variables), Date.now(), id);
  }

  async rename(id: string, name: string): Promise<void> {
    this.db.prepare("UPDATE conversations SET name = ?, updated_at = ? WHERE id = ?").run(name, Date.now(), id);
  }

  async delete(id: string): Promise<boolean> {
    return this.db.transaction(() => {
      this.db.prepare("DELETE FROM conversation_messages WHERE conversation_id = ?").run(id);
      return this.db.prepare("DELETE FROM conversations WHERE id = ?").run(id).changes > 0;
    })();
  }

  async deleteApp(appId: string): Promise<void> {
    this.db.transaction(() => {
      this.db.prepare("DELETE FROM conversation_messages WHERE app_id = ?").run(appId);
      this.db.prepare("DELETE FROM conversations WHERE app_id = ?").run(appId);
    })();
  }

  async addMessage(m: ConversationMessage): Promise<void> {
    this.db
      .prepare(
        `INSERT INTO conversation_messages (id, conversation_id, app_id, user_id, run_id, query, answer, inputs, files,
           status, error, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)`,
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

  async getMessage(id: string): Promise<ConversationMessage | undefined> {
    const r = this.db.prepare("SELECT * FROM conversation_messages WHERE id = ?").get(id);
    return r ? toMessage(r) : undefined;
  }

  async updateMessage(
    id: string,
    patch: Partial<Pick<ConversationMessage, "answer" | "status" | "error" | "updatedAt">>,
  ): Promise<void> {
    const fields = Object.keys(patch).filter((k): k is keyof typeof MESSAGE_COLUMNS => k in MESSAGE_COLUMNS);
    if (fields.length === 0) return;
    const sets = fields.map((f) => `${MESSAGE_COLUMNS[f]} = ?`).join(", ");
    const values = fields.map((f) => patch[f] ?? null);
    this.db.prepare(`UPDATE conversation_messages SET ${sets} WHERE id = ?`).run(...values, id);
  }

  async listMessages(
    conversationId: string,
    o: { firstId?: string; limit: number },
  ): Promise<Page<ConversationMessage> | undefined> {
    let rows: unknown[];
    if (o.firstId !== undefined) {
      const first = this.db
        .prepare("SELECT created_at AS t FROM conversation_messages WHERE id = ? AND conversation_id = ?")
        .get(o.firstId, conversationId) as { t: number } | undefined;
      if (!first) return undefined;
      rows = this.db
        .prepare(
          `SELECT * FROM conversation_messages WHERE conversation_id = ? AND (created_at < ? OR (created_at = ? AND id < ?))
             ORDER BY created_at DESC, id DESC LIMIT ?`,
        )
        .all(conversationId, first.t, first.t, o.firstId, o.limit + 1);
    } else {
      rows = this.db
        .prepare(
          "SELECT * FROM conversation_messages WHERE conversation_id = ? ORDER BY created_at DESC, id DESC LIMIT ?",
        )
        .all(conversationId, o.limit + 1);
    }
    return { data: rows.slice(0, o.limit).reverse().map(toMessage), hasMore: rows.length > o.limit };
  }

  async messages(conversationId: string): Promise<ConversationMessage[]> {
    return this.db
      .prepare("SELECT * FROM conversation_messages WHERE conversation_id = ? ORDER BY created_at, id")
      .all(conversationId)
      .map(toMessage);
  }
}
