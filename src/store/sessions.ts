import type { ChatMessage } from "../ir/services.js";
import type { Workflow } from "../ir/workflow.js";

export interface SessionTurn {
  index: number;
  instruction: string;
  answer: string;
  passed: boolean;
  workflow?: Workflow;
  createdAt: number;
}

/**
 * Chat sessions of `weft chat`: every turn and the workflow version it produced, so a chat can resume and
 * diff versions. Implemented in memory and on SQLite; issue 18 adds PostgreSQL.
 */
export interface SessionStore {
  /** Returns the session id (`id` if given). */
  create(opts?: { name?: string; mode?: string; id?: string }): Promise<string>;
  exists(id: string): Promise<boolean>;
  /** Numbers turns from 1; a session that does not exist is a `session.not_found` error. */
  addTurn(sessionId: string, t: Omit<SessionTurn, "index" | "createdAt">): Promise<SessionTurn>;
  turns(sessionId: string): Promise<SessionTurn[]>;
  /** The latest workflow a passing turn produced (a failed turn keeps the previous one current). */
  current(sessionId: string): Promise<Workflow | undefined>;
  /** The turns as chat messages, for the model's context. */
  history(sessionId: string): Promise<ChatMessage[]>;
}

/** The workflow of the last passing turn: what `SessionStore.current` answers from a session's turns. */
export function currentWorkflow(turns: SessionTurn[]): Workflow | undefined {
  return turns.filter((t) => t.passed && t.workflow).pop()?.workflow;
}

/** The turns as alternating user/assistant messages: what `SessionStore.history` answers. */
export function turnHistory(turns: SessionTurn[]): ChatMessage[] {
  return turns.flatMap((t) => [
    { role: "user" as const, content: t.instruction },
    { role: "assistant" as const, content: t.answer },
  ]);
}
