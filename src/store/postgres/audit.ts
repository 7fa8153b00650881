import { type AuditEntry, type AuditQuery, type AuditStore, auditLimit, type NewAuditEntry } from "../audit.js";
import { type AuditRow, auditParams, toAuditEntry } from "../sqlite/audit.js";
import type { PgDatabase } from "./database.js";

/** The audit log on PostgreSQL (migration 20). */
export class PostgresAuditStore implements AuditStore {
  constructor(private readonly db: PgDatabase) {}

  async record(e: NewAuditEntry): Promise<AuditEntry> {
    const { values } = auditParams(e);
    const [r] = await this.db.query<AuditRow>(
      `INSERT INTO audit_log (id, at, workspace_id, actor_kind, actor_id, actor_label, action, target, detail)
       VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9) RETURNING *`,
      values,
    );
    return toAuditEntry(r!);
  }

  async list(q: AuditQuery): Promise<AuditEntry[]> {
    const rows = await this.db.query<AuditRow>(
      `SELECT * FROM audit_log WHERE ($1::text IS NULL OR workspace_id = $1) AND at >= $2
       ORDER BY at DESC, seq DESC LIMIT $3`,
      [q.workspaceId ?? null, q.since ?? 0, auditLimit(q)],
    );
    return rows.map(toAuditEntry);
  }

  async prune(before: number): Promise<number> {
    const rows = await this.db.query("DELETE FROM audit_log WHERE at < $1 RETURNING id", [before]);
    return rows.length;
  }
}
