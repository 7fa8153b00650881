import type { FileValue } from "../ir/services.js";

/**
 * Chat conversations of advanced-chat apps and their messages. One conversation, whoever holds it: the web
 * studio's (no end user) and the service API's (`user` is Dify's end-user id). A conversation carries its
 * conversation variables and dialogue count from one run (turn) to the next, as Dify keeps them; the service
 * API also keeps the first turn's inputs (later turns run with them, as in Dify), a name and every message.
 * Implemented in memory and on SQLite; issue 18 adds PostgreSQL.
 */
export interface ConversationRecord {
  id: string;
  appId: string;
  /** The service API's end user; "" for conversations of the web studio. */
  user: string;
  name: string;
  /** The inputs of the first message; later turns run with them (as in Dify). */
  inputs: Record<string, unknown>;
  /** Values after the last finished turn; a variable absent here starts from the workflow's default. */
  variables: Record<string, unknown>;
  dialogueCount: number;
  createdAt: number;
  updatedAt: number;
}

/** `paused`: the turn's run waits for a human-input form; the answer so far is kept. */
export type MessageStatus = "normal" | "error" | "paused";

/** One turn of a conversation: the query, the reply and the run that produced it. */
export interface ConversationMessage {
  id: string;
  conversationId: string;
  appId: string;
  user: string;
  runId: string;
  query: string;
  answer: string;
  inputs: Record<string, unknown>;
  /** Files sent with the query (Dify file values). */
  files: FileValue[];
  status: MessageStatus;
  error?: string;
  createdAt: number;
  updatedAt: number;
}

export interface Page<T> {
  data: T[];
  hasMore: boolean;
}

export type ConversationSort = "created_at" | "-created_at" | "updated_at" | "-updated_at";

export interface NewConversation {
  user?: string;
  name?: string;
  inputs?: Record<string, unknown>;
}

export interface ConversationStore {
  create(appId: string, o?: NewConversation): Promise<ConversationRecord>;
  get(id: string): Promise<ConversationRecord | undefined>;
  /**
   * One user's conversations of one app, in `sort` order (default newest activity first); `lastId` is the last
   * conversation of the previous page. A `lastId` that names no conversation of theirs is `undefined`.
   */
  list(
    appId: string,
    user: string,
    o: { lastId?: string; limit: number; sort?: ConversationSort },
  ): Promise<Page<ConversationRecord> | undefined>;
  /** Record a finished turn: the variables as the run left them, one more dialogue. */
  finishTurn(id: string, variables: Record<string, unknown>): Promise<void>;
  rename(id: string, name: string): Promise<void>;
  /** Removes the conversation and its messages; false if there was none. */
  delete(id: string): Promise<boolean>;
  /** Removes every conversation of the app, with their messages. */
  deleteApp(appId: string): Promise<void>;

  addMessage(m: ConversationMessage): Promise<void>;
  getMessage(id: string): Promise<ConversationMessage | undefined>;
  updateMessage(
    id: string,
    patch: Partial<Pick<ConversationMessage, "answer" | "status" | "error" | "updatedAt">>,
  ): Promise<void>;
  /**
   * A page of a conversation's messages, oldest first: the `limit` newest ones older than `firstId` (the first
   * message of the page the client holds), or the newest when omitted. An unknown `firstId` is `undefined`.
   */
  listMessages(
    conversationId: string,
    o: { firstId?: string; limit: number },
  ): Promise<Page<ConversationMessage> | undefined>;
  /** Every message of a conversation, oldest first. */
  messages(conversationId: string): Promise<ConversationMessage[]>;
}
