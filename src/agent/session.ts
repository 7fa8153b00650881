import Database from "better-sqlite3";
import { ulid } from "ulid";
import { WeftError } from "../ir/errors.js";
import type { ChatMessage } from "../ir/services.js";
import { WorkflowSchema, type Workflow } from "../ir/workflow.js";

export interface SessionTurn {
  index: number;
  instruction: string;
  answer: string;
  passed: boolean;
  workflow?: Workflow;
  createdAt: number;
}

/** Chat sessions: every turn and the workflow version it produced, so a chat can resume and diff versions. */
export class SessionStore {
  readonly db: Database.Database;

  constructor(path: string) {
    this.db = new Database(path);
    this.db.pragma("journal_mode = WAL");
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS chat_sessions (id TEXT PRIMARY KEY, name TEXT, mode TEXT, created_at INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS chat_turns (
        session_id TEXT NOT NULL, idx INTEGER NOT NULL, instruction TEXT NOT NULL, answer TEXT NOT NULL,
        passed INTEGER NOT NULL, workflow TEXT, created_at INTEGER NOT NULL, PRIMARY KEY (session_id, idx));`);
  }

  close(): void {
    this.db.close();
  }

  create(opts: { name?: string; mode?: string; id?: string } = {}): string {
    const id = opts.id ?? ulid();
    this.db.prepare("INSERT INTO chat_sessions (id, name, mode, created_at) VALUES (?,?,?,?)").run(id, opts.name ?? "chat", opts.mode ?? "workflow", Date.now());
    return id;
  }

  exists(id: string): boolean {
    return !!this.db.prepare("SELECT 1 FROM chat_sessions WHERE id = ?").get(id);
  }

  addTurn(sessionId: string, t: Omit<SessionTurn, "index" | "createdAt">): SessionTurn {
    if (!this.exists(sessionId)) throw new WeftError("session.not_found", `no chat session ${sessionId}`);
    const { n } = this.db.prepare("SELECT COUNT(*) AS n FROM chat_turns WHERE session_id = ?").get(sessionId) as { n: number };
    const turn: SessionTurn = { ...t, index: n + 1, createdAt: Date.now() };
    this.db
      .prepare("INSERT INTO chat_turns (session_id, idx, instruction, answer, passed, workflow, created_at) VALUES (?,?,?,?,?,?,?)")
      .run(sessionId, turn.index, t.instruction, t.answer, t.passed ? 1 : 0, t.workflow ? JSON.stringify(t.workflow) : null, turn.createdAt);
    return turn;
  }

  turns(sessionId: string): SessionTurn[] {
    return (this.db.prepare("SELECT * FROM chat_turns WHERE session_id = ? ORDER BY idx").all(sessionId) as any[]).map((r) => ({
      index: r.idx,
      instruction: r.instruction,
      answer: r.answer,
      passed: r.passed === 1,
      workflow: r.workflow ? WorkflowSchema.parse(JSON.parse(r.workflow)) : undefined,
      createdAt: r.created_at,
    }));
  }

  /** The latest workflow a turn produced (a failed turn keeps the previous one current). */
  current(sessionId: string): Workflow | undefined {
    return this.turns(sessionId).filter((t) => t.passed && t.workflow).pop()?.workflow;
  }

  history(sessionId: string): ChatMessage[] {
    return this.turns(sessionId).flatMap((t) => [
      { role: "user" as const, content: t.instruction },
      { role: "assistant" as const, content: t.answer },
    ]);
  }
}
