import type Database from "better-sqlite3";
import { ulid } from "ulid";
import type { ConversationRecord, ConversationStore } from "../conversations.js";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS conversations (
  id TEXT PRIMARY KEY, app_id TEXT NOT NULL, variables TEXT NOT NULL, dialogue_count INTEGER NOT NULL,
  created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS conversations_app ON conversations(app_id, created_at);
`;

interface Row {
  id: string;
  app_id: string;
  variables: string;
  dialogue_count: number;
  created_at: number;
  updated_at: number;
}

const toRecord = (r: Row): ConversationRecord => ({
  id: r.id,
  appId: r.app_id,
  variables: JSON.parse(r.variables),
  dialogueCount: r.dialogue_count,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** Conversations on the shared SQLite connection. Synchronous underneath, like `SqliteRunStore`. */
export class SqliteConversationStore implements ConversationStore {
  constructor(readonly db: Database.Database) {
    db.exec(SCHEMA);
  }

  async create(appId: string): Promise<ConversationRecord> {
    const id = ulid();
    const now = Date.now();
    this.db
      .prepare(
        "INSERT INTO conversations (id, app_id, variables, dialogue_count, created_at, updated_at) VALUES (?,?,?,?,?,?)",
      )
      .run(id, appId, "{}", 0, now, now);
    return (await this.get(id))!;
  }

  async get(id: string): Promise<ConversationRecord | undefined> {
    const r = this.db.prepare("SELECT * FROM conversations WHERE id = ?").get(id) as Row | undefined;
    return r ? toRecord(r) : undefined;
  }

  async finishTurn(id: string, variables: Record<string, unknown>): Promise<void> {
    this.db
      .prepare(
        "UPDATE conversations SET variables = ?, dialogue_count = dialogue_count + 1, updated_at = ? WHERE id = ?",
      )
      .run(JSON.stringify(variables), Date.now(), id);
  }

  async deleteApp(appId: string): Promise<void> {
    this.db.prepare("DELETE FROM conversations WHERE app_id = ?").run(appId);
  }
}
