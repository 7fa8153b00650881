import type Database from "better-sqlite3";
import { ulid } from "ulid";

/**
 * Chat conversations of advanced-chat apps: the conversation variables and the dialogue count that carry
 * from one run (turn) to the next, as Dify keeps them per conversation.
 */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS conversations (
  id TEXT PRIMARY KEY, app_id TEXT NOT NULL, variables TEXT NOT NULL, dialogue_count INTEGER NOT NULL,
  created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS conversations_app ON conversations(app_id, created_at);
`;

export interface ConversationRecord {
  id: string;
  appId: string;
  /** Values after the last finished turn; a variable absent here starts from the workflow's default. */
  variables: Record<string, unknown>;
  dialogueCount: number;
  createdAt: number;
  updatedAt: number;
}

const toRecord = (r: any): ConversationRecord => ({
  id: r.id,
  appId: r.app_id,
  variables: JSON.parse(r.variables),
  dialogueCount: r.dialogue_count,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export class ConversationStore {
  constructor(readonly db: Database.Database) {
    db.exec(SCHEMA);
  }

  create(appId: string): ConversationRecord {
    const id = ulid();
    const now = Date.now();
    this.db
      .prepare(
        "INSERT INTO conversations (id, app_id, variables, dialogue_count, created_at, updated_at) VALUES (?,?,?,?,?,?)",
      )
      .run(id, appId, "{}", 0, now, now);
    return this.get(id)!;
  }

  get(id: string): ConversationRecord | undefined {
    const r = this.db.prepare("SELECT * FROM conversations WHERE id = ?").get(id);
    return r ? toRecord(r) : undefined;
  }

  /** Record a finished turn: the variables as the run left them, one more dialogue. */
  finishTurn(id: string, variables: Record<string, unknown>): void {
    this.db
      .prepare(
        "UPDATE conversations SET variables = ?, dialogue_count = dialogue_count + 1, updated_at = ? WHERE id = ?",
      )
      .run(JSON.stringify(variables), Date.now(), id);
  }

  deleteApp(appId: string): void {
    this.db.prepare("DELETE FROM conversations WHERE app_id = ?").run(appId);
  }
}
