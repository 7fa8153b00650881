import { newId } from "../../util/ids.js";
import type {
  ConversationMessage,
  ConversationRecord,
  ConversationSort,
  ConversationStore,
  NewConversation,
  Page,
} from "../conversations.js";
import type { PgDatabase } from "./database.js";
import { json } from "./json.js";

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

interface MessageRow {
  id: string;
  conversation_id: string;
  app_id: string;
  user_id: string;
  run_id: string;
  query: string;
  answer: string;
  inputs: string;
  files: string;
  status: ConversationMessage["status"];
  error: string | null;
  created_at: number;
  updated_at: number;
}

const COLUMNS = "id, app_id, user_id, name, inputs, variables, dialogue_count, created_at, updated_at";
const MESSAGE_SELECT =
  "id, conversation_id, app_id, user_id, run_id, query, answer, inputs, files, status, error, created_at, updated_at";

const toRecord = (r: Row): ConversationRecord => ({
  id: r.id,
  appId: r.app_id,
  user: json(r.user_id),
  name: json(r.name),
  inputs: json(r.inputs),
  variables: json(r.variables),
  dialogueCount: r.dialogue_count,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const toMessage = (r: MessageRow): ConversationMessage => ({
  id: r.id,
  conversationId: r.conversation_id,
  appId: r.app_id,
  user: json(r.user_id),
  runId: r.run_id,
  query: json(r.query),
  answer: json(r.answer),
  inputs: json(r.inputs),
  files: json(r.files),
  status: r.status,
  ...(r.error !== null ? { error: json<string>(r.error) } : {}),
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** Columns a patch may set (and how each value is written), so no caller-supplied name reaches the SQL text. */
const MESSAGE_PATCH = {
  answer: ["answer", (v: unknown) => JSON.stringify(v)],
  status: ["status", (v: unknown) => v],
  error: ["error", (v: unknown) => (v === undefined || v === null ? null : JSON.stringify(v))],
  updatedAt: ["updated_at", (v: unknown) => v],
} as const;

/** Conversations of chat apps (the studio's and the service API's) and their messages, on PostgreSQL. */
export class PostgresConversationStore implements ConversationStore {
  constructor(private readonly db: PgDatabase) {}

  async create(appId: string, o: NewConversation = {}): Promise<ConversationRecord> {
    const now = Date.now();
    const [row] = await this.db.query<Row>(
      `INSERT INTO conversations (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, '{}', 0, $6, $6) RETURNING ${COLUMNS}`,
      [newId(), appId, JSON.stringify(o.user ?? ""), JSON.stringify(o.name ?? ""), JSON.stringify(o.inputs ?? {}), now],
    );
    return toRecord(row!);
  }

  async get(id: string): Promise<ConversationRecord | undefined> {
    const [row] = await this.db.query<Row>(`SELECT ${COLUMNS} FROM conversations WHERE id = $1`, [id]);
    return row ? toRecord(row) : undefined;
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
    // The user is stored as JSON text; compare it in that form (json has no equality operator).
    const who = JSON.stringify(user);
    let rows: Row[];
    if (o.lastId !== undefined) {
      const [last] = await this.db.query<{ t: number }>(
        `SELECT ${column} AS t FROM conversations WHERE id = $1 AND app_id = $2 AND user_id::text = $3`,
        [o.lastId, appId, who],
      );
      if (!last) return undefined;
      rows = await this.db.query<Row>(
        `SELECT ${COLUMNS} FROM conversations WHERE app_id = $1 AND user_id::text = $2
           AND (${column} ${cmp} $3 OR (${column} = $3 AND id ${cmp} $4)) ${order} LIMIT $5`,
        [appId, who, last.t, o.lastId, o.limit + 1],
      );
    } else {
      rows = await this.db.query<Row>(
        `SELECT ${COLUMNS} FROM conversations WHERE app_id = $1 AND user_id::text = $2 ${order} LIMIT $3`,
        [appId, who, o.limit + 1],
      );
    }
    return { data: rows.slice(0, o.limit).map(toRecord), hasMore: rows.length > o.limit };
  }

  async finishTurn(id: string, variables: Record<string, unknown>): Promise<void> {
    await this.db.query(
      "UPDATE conversations SET variables = $2, dialogue_count = dialogue_count + 1, updated_at = $3 WHERE id = $1",
      [id, JSON.stringify(variables), Date.now()],
    );
  }

  async rename(id: string, name: string): Promise<void> {
    await this.db.query("UPDATE conversations SET name = $2, updated_at = $3 WHERE id = $1", [
      id,
      JSON.stringify(name),
      Date.now(),
    ]);
  }

  async delete(id: string): Promise<boolean> {
    return this.db.tx(async (q) => {
      await q("DELETE FROM conversation_messages WHERE conversation_id = $1", [id]);
      return (await q("DELETE FROM conversations WHERE id = $1 RETURNING id", [id])).length > 0;
    });
  }

  async deleteApp(appId: string): Promise<void> {
    await this.db.tx(async (q) => {
      await q("DELETE FROM conversation_messages WHERE app_id = $1", [appId]);
      await q("DELETE FROM conversations WHERE app_id = $1", [appId]);
    });
  }

  async addMessage(m: ConversationMessage): Promise<void> {
    await this.db.query(
      `INSERT INTO conversation_messages (${MESSAGE_SELECT}) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13)`,
      [
        m.id,
        m.conversationId,
        m.appId,
        JSON.stringify(m.user),
        m.runId,
        JSON.stringify(m.query),
        JSON.stringify(m.answer),
        JSON.stringify(m.inputs),
        JSON.stringify(m.files),
        m.status,
        m.error === undefined ? null : JSON.stringify(m.error),
        m.createdAt,
        m.updatedAt,
      ],
    );
  }

  async getMessage(id: string): Promise<ConversationMessage | undefined> {
    const [row] = await this.db.query<MessageRow>(`SELECT ${MESSAGE_SELECT} FROM conversation_messages WHERE id = $1`, [
      id,
    ]);
    return row ? toMessage(row) : undefined;
  }

  async updateMessage(
    id: string,
    patch: Partial<Pick<ConversationMessage, "answer" | "status" | "error" | "updatedAt">>,
  ): Promise<void> {
    const fields = Object.keys(patch).filter((k): k is keyof typeof MESSAGE_PATCH => Object.hasOwn(MESSAGE_PATCH, k));
    if (fields.length === 0) return;
    const sets = fields.map((f, i) => `${MESSAGE_PATCH[f][0]} = $${i + 2}`).join(", ");
    await this.db.query(`UPDATE conversation_messages SET ${sets} WHERE id = $1`, [
      id,
      ...fields.map((f) => MESSAGE_PATCH[f][1](patch[f])),
    ]);
  }

  async listMessages(
    conversationId: string,
    o: { firstId?: string; limit: number },
  ): Promise<Page<ConversationMessage> | undefined> {
    let rows: MessageRow[];
    if (o.firstId !== undefined) {
      const [first] = await this.db.query<{ t: number }>(
        "SELECT created_at AS t FROM conversation_messages WHERE id = $1 AND conversation_id = $2",
        [o.firstId, conversationId],
      );
      if (!first) return undefined;
      rows = await this.db.query<MessageRow>(
        `SELECT ${MESSAGE_SELECT} FROM conversation_messages WHERE conversation_id = $1
           AND (created_at < $2 OR (created_at = $2 AND id < $3)) ORDER BY created_at DESC, id DESC LIMIT $4`,
        [conversationId, first.t, o.firstId, o.limit + 1],
      );
    } else {
      rows = await this.db.query<MessageRow>(
        `SELECT ${MESSAGE_SELECT} FROM conversation_messages WHERE conversation_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2`,
        [conversationId, o.limit + 1],
      );
    }
    return { data: rows.slice(0, o.limit).reverse().map(toMessage), hasMore: rows.length > o.limit };
  }

  async messages(conversationId: string): Promise<ConversationMessage[]> {
    return (
      await this.db.query<MessageRow>(
        `SELECT ${MESSAGE_SELECT} FROM conversation_messages WHERE conversation_id = $1 ORDER BY created_at, id`,
        [conversationId],
      )
    ).map(toMessage);
  }
}
