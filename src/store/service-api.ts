import type { FileValue } from "../ir/services.js";

/**
 * State of the Dify-compatible service API (`/v1`): app keys bound to one app each, which end user started
 * which run, chat conversations and their messages, and uploaded files. Implemented in memory and on SQLite;
 * issue 18 adds PostgreSQL.
 */

export interface AppKeyRecord {
  id: string;
  appId: string;
  createdAt: number;
}

/** A run started through the service API: its end user, and for chat apps its conversation and message. */
export interface ServiceRunRecord {
  runId: string;
  appId: string;
  user: string;
  conversationId?: string;
  messageId?: string;
  createdAt: number;
}

export interface ConversationRecord {
  id: string;
  appId: string;
  user: string;
  name: string;
  /** The inputs of the first message; later turns run with them (as in Dify). */
  inputs: Record<string, unknown>;
  /** Conversation variables after the latest finished turn. */
  variables: Record<string, unknown>;
  createdAt: number;
  updatedAt: number;
}

export type MessageStatus = "normal" | "error";

export interface ServiceMessageRecord {
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

export interface UploadRecord {
  id: string;
  appId: string;
  user: string;
  /** The stored file as the engine reads it (`related_id` names the bytes in the file service). */
  file: FileValue;
  createdAt: number;
}

export interface Page<T> {
  data: T[];
  hasMore: boolean;
}

export type ConversationSort = "created_at" | "-created_at" | "updated_at" | "-updated_at";

export interface ServiceApiStore {
  /** A new `app-…` key for one app; only its hash is stored, so the key is returned this once. */
  createAppKey(appId: string): Promise<{ id: string; key: string }>;
  /** The app a key is bound to, or undefined for an unknown or revoked key. */
  appOfKey(key: string): Promise<string | undefined>;
  /** Oldest first; all apps' keys when `appId` is omitted. */
  listAppKeys(appId?: string): Promise<AppKeyRecord[]>;
  revokeAppKey(id: string): Promise<boolean>;

  recordRun(r: ServiceRunRecord): Promise<void>;
  serviceRun(runId: string): Promise<ServiceRunRecord | undefined>;

  createConversation(c: ConversationRecord): Promise<void>;
  getConversation(id: string): Promise<ConversationRecord | undefined>;
  /**
   * One user's conversations of one app, in `sort` order (default newest activity first); `lastId` is the last
   * conversation of the previous page. A `lastId` that names no conversation of theirs is `undefined`.
   */
  listConversations(
    appId: string,
    user: string,
    o: { lastId?: string; limit: number; sort?: ConversationSort },
  ): Promise<Page<ConversationRecord> | undefined>;
  updateConversation(
    id: string,
    patch: Partial<Pick<ConversationRecord, "name" | "variables" | "updatedAt">>,
  ): Promise<void>;
  /** Removes the conversation and its messages; false if there was none. */
  deleteConversation(id: string): Promise<boolean>;

  addMessage(m: ServiceMessageRecord): Promise<void>;
  getMessage(id: string): Promise<ServiceMessageRecord | undefined>;
  updateMessage(
    id: string,
    patch: Partial<Pick<ServiceMessageRecord, "answer" | "status" | "error" | "updatedAt">>,
  ): Promise<void>;
  /**
   * A page of a conversation's messages, oldest first: the `limit` newest ones older than `firstId` (the first
   * message of the page the client holds), or the newest when omitted. An unknown `firstId` is `undefined`.
   */
  listMessages(
    conversationId: string,
    o: { firstId?: string; limit: number },
  ): Promise<Page<ServiceMessageRecord> | undefined>;
  /** Every message of a conversation, oldest first (the memory of the next turn). */
  conversationMessages(conversationId: string): Promise<ServiceMessageRecord[]>;

  putUpload(u: UploadRecord): Promise<void>;
  getUpload(id: string): Promise<UploadRecord | undefined>;
}
