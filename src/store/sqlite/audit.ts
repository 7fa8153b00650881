import { randomUUID } from "node:crypto";
import type Database from "better-sqlite3";
import {
  type ActorKind,
  type AuditEntry,
  type AuditQuery,
  type AuditStore,
  auditLimit,
  type NewAuditEntry,
} from "../audit.js";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS audit_log (
  id TEXT PRIMARY KEY, at INTEGER NOT NULL, workspace_id TEXT NOT NULL, actor_kind TEXT NOT NULL,
  actor_id TEXT NOT NULL, actor_label TEXT NOT NULL, action TEXT NOT NULL, target TEXT, detail TEXT);
CREATE INDEX IF NOT EXISTS audit_log_at ON audit_log (workspace_id, at);
`;

export interface AuditRow {
  id: string;
  at: number | string;
  workspace_id: string;
  actor_kind: ActorKind;
  actor_id: string;
  actor_label: string;
  action: string;
  target: string | null;
  detail: string | null;
}

export const toAuditEntry = (r: AuditRow): AuditEntry => ({
  id: r.id,
  at: Number(r.at),
  workspaceId: r.workspace_id,
  actorKind: r.actor_kind,
  actorId: r.actor_id,
  actorLabel: r.actor_label,
  action: r.action,
  ...(r.target === null ? {} : { target: r.target }),
  ...(r.detail === null ? {} : { detail: JSON.parse(r.detail) as Record<string, unknown> }),
});

/** The values of one insert, in the column order both SQL stores use. */
export const auditParams = (e: NewAuditEntry) => {
  const rec = { id: randomUUID(), at: e.at ?? Date.now() };
  const values = [
    rec.id,
    rec.at,
    e.workspaceId,
    e.actorKind,
    e.actorId,
    e.actorLabel,
    e.action,
    e.target ?? null,
    e.detail === undefined ? null : JSON.stringify(e.detail),
  ];
  return { rec, values };
};

export class SqliteAuditStore implements AuditStore {
  constructor(private readonly db: Database.Database) {
    db.exec(SCHEMA);
  }

  async record(e: NewAuditEntry): Promise<AuditEntry> {
    const { values } = auditParams(e);
    this.db
      .prepare(
        `INSERT INTO audit_log (id, at, workspace_id, actor_kind, actor_id, actor_label, action, target, detail)
         VALUES (?,?,?,?,?,?,?,?,?)`,
      )
      .run(...values);
    return toAuditEntry(this.db.prepare("SELECT * FROM audit_log WHERE id = ?").get(values[0]) as AuditRow);
  }

  async list(q: AuditQuery): Promise<AuditEntry[]> {
    const rows = this.db
      .prepare(
        `SELECT * FROM audit_log WHERE (? IS NULL OR workspace_id = ?) AND at >= ?
         ORDER BY at DESC, rowid DESC LIMIT ?`,
      )
      .all(q.workspaceId ?? null, q.workspaceId ?? null, q.since ?? 0, auditLimit(q)) as AuditRow[];
    return rows.map(toAuditEntry);
  }

  async prune(before: number): Promise<number> {
    return this.db.prepare("DELETE FROM audit_log WHERE at < ?").run(before).changes;
  }
}
