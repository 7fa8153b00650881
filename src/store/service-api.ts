import type { FileValue } from "../ir/services.js";

/**
 * State of the Dify-compatible service API (`/v1`): app keys bound to one app each, which end user started
 * which run, and uploaded files (conversations and their messages are the ConversationStore's). Implemented in memory and on SQLite;
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
  /** The request's `files` (sys.files), so a resumed run sees the same. */
  files?: FileValue[];
  createdAt: number;
}

export interface UploadRecord {
  id: string;
  appId: string;
  user: string;
  /** The stored file as the engine reads it (`related_id` names the bytes in the file service). */
  file: FileValue;
  createdAt: number;
}

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

  putUpload(u: UploadRecord): Promise<void>;
  getUpload(id: string): Promise<UploadRecord | undefined>;
}
