import type Database from "better-sqlite3";
import { ulid } from "ulid";
import { WeftError } from "../../ir/errors.js";
import type { ChatMessage } from "../../ir/services.js";
import { type Workflow, WorkflowSchema } from "../../ir/workflow.js";
import { currentWorkflow, type SessionStore, type SessionTurn, turnHistory } from "../sessions.js";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS chat_sessions (id TEXT PRIMARY KEY, name TEXT, mode TEXT, created_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS chat_turns (
  session_id TEXT NOT NULL, idx INTEGER NOT NULL, instruction TEXT NOT NULL, answer TEXT NOT NULL,
  passed INTEGER NOT NULL, workflow TEXT, created_at INTEGER NOT NULL, PRIMARY KEY (session_id, idx));`;

/** Chat sessions on the shared SQLite connection. Synchronous underneath, like `SqliteRunStore`. */
export class SqliteSessionStore implements SessionStore {
  constructor(readonly db: Database.Database) {
    db.exec(SCHEMA);
  }

  async create(opts: { name?: string; mode?: string; id?: string } = {}): Promise<string> {
    const id = opts.id ?? ulid();
    const r = this.db
      .prepare("INSERT OR IGNORE INTO chat_sessions (id, name, mode, created_at) VALUES (?,?,?,?)")
      .run(id, opts.name ?? "chat", opts.mode ?? "workflow", Date.now());
    if (r.changes === 0) throw new WeftError("session.exists", `chat session ${id} already exists`);
    return id;
  }

  async exists(id: string): Promise<boolean> {
    return !!this.db.prepare("SELECT 1 FROM chat_sessions WHERE id = ?").get(id);
  }

  async addTurn(sessionId: string, t: Omit<SessionTurn, "index" | "createdAt">): Promise<SessionTurn> {
    if (!(await this.exists(sessionId))) throw new WeftError("session.not_found", `no chat session ${sessionId}`);
    // Count and insert in one transaction so two writers never take the same index.
    return this.db.transaction((): SessionTurn => {
      const { n } = this.db.prepare("SELECT COUNT(*) AS n FROM chat_turns WHERE session_id = ?").get(sessionId) as {
        n: number;
      };
      const turn: SessionTurn = { ...t, index: n + 1, createdAt: Date.now() };
      this.db
        .prepare(
          "INSERT INTO chat_turns (session_id, idx, instruction, answer, passed, workflow, created_at) VALUES (?,?,?,?,?,?,?)",
        )
        .run(
          sessionId,
          turn.index,
          t.instruction,
          t.answer,
          t.passed ? 1 : 0,
          t.workflow ? JSON.stringify(t.workflow) : null,
          turn.createdAt,
        );
      return turn;
    })();
  }

  async turns(sessionId: string): Promise<SessionTurn[]> {
    return (this.db.prepare("SELECT * FROM chat_turns WHERE session_id = ? ORDER BY idx").all(sessionId) as any[]).map(
      (r) => ({
        index: r.idx,
        instruction: r.instruction,
        answer: r.answer,
        passed: r.passed === 1,
        workflow: r.workflow ? WorkflowSchema.parse(JSON.parse(r.workflow)) : undefined,
        createdAt: r.created_at,
      }),
    );
  }

  async current(sessionId: string): Promise<Workflow | undefined> {
    return currentWorkflow(await this.turns(sessionId));
  }

  async history(sessionId: string): Promise<ChatMessage[]> {
    return turnHistory(await this.turns(sessionId));
  }
}
