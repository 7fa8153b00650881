import { ulid } from "ulid";
import { WeftError } from "../../ir/errors.js";
import type { ChatMessage } from "../../ir/services.js";
import { type Workflow, WorkflowSchema } from "../../ir/workflow.js";
import { currentWorkflow, type SessionStore, type SessionTurn, turnHistory } from "../sessions.js";
import type { PgDatabase } from "./database.js";
import { json } from "./json.js";

interface TurnRow {
  idx: number;
  instruction: string;
  answer: string;
  passed: boolean;
  workflow: string | null;
  created_at: number;
}

/** `weft chat` sessions on PostgreSQL. */
export class PostgresSessionStore implements SessionStore {
  constructor(private readonly db: PgDatabase) {}

  async create(opts: { name?: string; mode?: string; id?: string } = {}): Promise<string> {
    const id = opts.id ?? ulid();
    const rows = await this.db.query(
      "INSERT INTO chat_sessions (id, name, mode, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT (id) DO NOTHING RETURNING id",
      [id, JSON.stringify(opts.name ?? "chat"), opts.mode ?? "workflow", Date.now()],
    );
    if (rows.length === 0) throw new WeftError("session.exists", `chat session ${id} already exists`);
    return id;
  }

  async exists(id: string): Promise<boolean> {
    return (await this.db.query("SELECT 1 FROM chat_sessions WHERE id = $1", [id])).length > 0;
  }

  async addTurn(sessionId: string, t: Omit<SessionTurn, "index" | "createdAt">): Promise<SessionTurn> {
    return this.db.tx(async (q) => {
      // Locking the session row makes concurrent writers of one session take turns for the next index.
      const found = await q("SELECT 1 FROM chat_sessions WHERE id = $1 FOR UPDATE", [sessionId]);
      if (found.length === 0) throw new WeftError("session.not_found", `no chat session ${sessionId}`);
      const createdAt = Date.now();
      const [row] = await q<{ idx: number }>(
        `INSERT INTO chat_turns (session_id, idx, instruction, answer, passed, workflow, created_at)
         SELECT $1, COALESCE(MAX(idx), 0) + 1, $2, $3, $4, $5, $6 FROM chat_turns WHERE session_id = $1
         RETURNING idx`,
        [
          sessionId,
          JSON.stringify(t.instruction),
          JSON.stringify(t.answer),
          t.passed,
          t.workflow ? JSON.stringify(t.workflow) : null,
          createdAt,
        ],
      );
      return { ...t, index: row!.idx, createdAt };
    });
  }

  async turns(sessionId: string): Promise<SessionTurn[]> {
    const rows = await this.db.query<TurnRow>(
      "SELECT idx, instruction, answer, passed, workflow, created_at FROM chat_turns WHERE session_id = $1 ORDER BY idx",
      [sessionId],
    );
    return rows.map((r) => ({
      index: r.idx,
      instruction: json(r.instruction),
      answer: json(r.answer),
      passed: r.passed,
      workflow: r.workflow ? WorkflowSchema.parse(json(r.workflow)) : undefined,
      createdAt: r.created_at,
    }));
  }

  async current(sessionId: string): Promise<Workflow | undefined> {
    return currentWorkflow(await this.turns(sessionId));
  }

  async history(sessionId: string): Promise<ChatMessage[]> {
    return turnHistory(await this.turns(sessionId));
  }
}
