import type { RunEvent } from "../engine/events.js";
import type { AppMode, Workflow } from "../ir/workflow.js";

export interface AppRecord {
  id: string;
  name: string;
  mode: AppMode;
  description: string;
  createdAt: number;
  updatedAt: number;
}

export type VersionSource = "create" | "import" | "edit" | "agent" | "sample";

export interface VersionRecord {
  appId: string;
  version: number;
  workflow: Workflow;
  source: VersionSource;
  note: string;
  createdAt: number;
}

export interface ChatMessageRecord {
  seq: number;
  role: "user" | "assistant";
  text: string;
  version?: number;
  createdAt: number;
}

export interface ApiKeyRecord {
  id: string;
  name: string;
  createdAt: number;
  lastUsedAt?: number;
}

/** Events of one run starting at sequence number `from` (0-based, contiguous). */
export interface EventBatch {
  runId: string;
  from: number;
  events: RunEvent[];
}

/**
 * The server's state beside the runs: apps and their workflow versions, API keys, the app chat's messages,
 * and run event logs (for SSE replay). Implemented in memory and on SQLite; issue 18 adds PostgreSQL.
 */
export interface AppStore {
  /** A new app with version 1 of its workflow, written together. */
  createApp(
    a: { name: string; mode: AppMode; description?: string },
    workflow: Workflow,
    source: VersionSource,
  ): Promise<{ app: AppRecord; version: VersionRecord }>;
  /** Newest first. */
  listApps(): Promise<AppRecord[]>;
  getApp(id: string): Promise<AppRecord | undefined>;
  /** Removes the app, its versions and messages; false if there was no such app. */
  deleteApp(id: string): Promise<boolean>;

  /** Append the next version; the app's name follows the workflow's. */
  addVersion(appId: string, wf: Workflow, source: VersionSource, note?: string): Promise<VersionRecord>;
  current(appId: string): Promise<VersionRecord | undefined>;
  version(appId: string, version: number): Promise<VersionRecord | undefined>;
  /** Oldest first. */
  versions(appId: string): Promise<VersionRecord[]>;

  addMessage(appId: string, role: "user" | "assistant", text: string, version?: number): Promise<void>;
  /** In the order they were added. */
  messages(appId: string): Promise<ChatMessageRecord[]>;

  /** A new API key; only its hash is stored, so the plain key is returned this once. */
  createKey(name?: string): Promise<{ id: string; key: string }>;
  listKeys(): Promise<ApiKeyRecord[]>;
  revokeKey(id: string): Promise<boolean>;
  verifyKey(key: string): Promise<boolean>;

  /**
   * Write event batches, all in one transaction; writing a sequence number again replaces that event, so
   * a batch that is retried after a crash is harmless.
   */
  appendEvents(batches: EventBatch[]): Promise<void>;
  /** A run's events in sequence order; with `after`, only those with a greater sequence number (SSE Last-Event-ID). */
  events(runId: string, after?: number): Promise<RunEvent[]>;
}
