import { ulid } from "ulid";
import type { ConversationRecord, ConversationStore } from "../conversations.js";
import type { PgDatabase } from "./database.js";
import { json } from "./json.js";

interface Row {
  id: string;
  app_id: string;
  variables: string;
  dialogue_count: number;
  created_at: number;
  updated_at: number;
}

const COLUMNS = "id, app_id, variables, dialogue_count, created_at, updated_at";

const toRecord = (r: Row): ConversationRecord => ({
  id: r.id,
  appId: r.app_id,
  variables: json(r.variables),
  dialogueCount: r.dialogue_count,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** Chat apps' conversations on PostgreSQL. */
export class PostgresConversationStore implements ConversationStore {
  constructor(private readonly db: PgDatabase) {}

  async create(appId: string): Promise<ConversationRecord> {
    const now = Date.now();
    const [row] = await this.db.query<Row>(
      `INSERT INTO conversations (${COLUMNS}) VALUES ($1, $2, '{}', 0, $3, $3) RETURNING ${COLUMNS}`,
      [ulid(), appId, now],
    );
    return toRecord(row!);
  }

  async get(id: string): Promise<ConversationRecord | undefined> {
    const [row] = await this.db.query<Row>(`SELECT ${COLUMNS} FROM conversations WHERE id = $1`, [id]);
    return row ? toRecord(row) : undefined;
  }

  async finishTurn(id: string, variables: Record<string, unknown>): Promise<void> {
    await this.db.query(
      "UPDATE conversations SET variables = $2, dialogue_count = dialogue_count + 1, updated_at = $3 WHERE id = $1",
      [id, JSON.stringify(variables), Date.now()],
    );
  }

  async deleteApp(appId: string): Promise<void> {
    await this.db.query("DELETE FROM conversations WHERE app_id = $1", [appId]);
  }
}
