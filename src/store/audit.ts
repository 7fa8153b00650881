import { WeftError } from "../ir/errors.js";

/**
 * The audit log: who changed what, when, and with which credential. An entry names its actor by id and a
 * readable label (a user's email, an API key's name) — never a secret, a key or a password. Implemented in
 * memory, on SQLite and on PostgreSQL (migration 20); pruned with the run logs' age rule (runs.retention.days).
 */
export type ActorKind = "session" | "key" | "cli" | "link";

export interface AuditEntry {
  id: string;
  at: number;
  workspaceId: string;
  actorKind: ActorKind;
  /** A user id, an API key id, or the OS user for the CLI. */
  actorId: string;
  /** A user's email or a key's name: what a reader recognises. */
  actorLabel: string;
  /** What was done, e.g. `app.publish`, `member.role`, `secret.set` (see src/audit/actions.ts). */
  action: string;
  /** The resource acted on: `app:ID`, `run:ID`, `user:ID`, `env:APP/NAME`… */
  target?: string;
  /** Facts of the action that are not secret (an override's reason, a new role). */
  detail?: Record<string, unknown>;
}

export type NewAuditEntry = Omit<AuditEntry, "id" | "at"> & { at?: number };

export interface AuditQuery {
  workspaceId?: string;
  /** Entries at or after this time (ms since epoch). */
  since?: number;
  /** Newest first; at most this many (default and cap MAX_AUDIT_PAGE). */
  limit?: number;
}

export const MAX_AUDIT_PAGE = 1000;

export class AuditStoreError extends WeftError {}

export interface AuditStore {
  record(e: NewAuditEntry): Promise<AuditEntry>;
  /** Newest first. */
  list(q: AuditQuery): Promise<AuditEntry[]>;
  /** Deletes entries older than `before` (ms); how many went. */
  prune(before: number): Promise<number>;
}

export const auditLimit = (q: AuditQuery) => Math.min(Math.max(1, q.limit ?? MAX_AUDIT_PAGE), MAX_AUDIT_PAGE);
