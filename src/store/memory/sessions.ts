import { ulid } from "ulid";
import { WeftError } from "../../ir/errors.js";
import type { ChatMessage } from "../../ir/services.js";
import type { Workflow } from "../../ir/workflow.js";
import { currentWorkflow, type SessionStore, type SessionTurn, turnHistory } from "../sessions.js";

/** In-process chat sessions (nothing survives the process); same contract as the SQLite store. */
export class MemorySessionStore implements SessionStore {
  private sessions = new Map<string, SessionTurn[]>();

  async create(opts: { name?: string; mode?: string; id?: string } = {}): Promise<string> {
    const id = opts.id ?? ulid();
    if (this.sessions.has(id)) throw new WeftError("session.exists", `chat session ${id} already exists`);
    this.sessions.set(id, []);
    return id;
  }

  async exists(id: string): Promise<boolean> {
    return this.sessions.has(id);
  }

  async addTurn(sessionId: string, t: Omit<SessionTurn, "index" | "createdAt">): Promise<SessionTurn> {
    const turns = this.sessions.get(sessionId);
    if (!turns) throw new WeftError("session.not_found", `no chat session ${sessionId}`);
    const turn: SessionTurn = { ...structuredClone(t), index: turns.length + 1, createdAt: Date.now() };
    turns.push(turn);
    return structuredClone(turn);
  }

  async turns(sessionId: string): Promise<SessionTurn[]> {
    return structuredClone(this.sessions.get(sessionId) ?? []);
  }

  async current(sessionId: string): Promise<Workflow | undefined> {
    return currentWorkflow(await this.turns(sessionId));
  }

  async history(sessionId: string): Promise<ChatMessage[]> {
    return turnHistory(await this.turns(sessionId));
  }
}
