import type { InviteRecord, InviteStore, NewInvite } from "../invites.js";
import { type InviteRow, inviteValues, toInvite } from "../sqlite/invites.js";
import type { PgDatabase } from "./database.js";

/** Invitations and setup links on PostgreSQL (migration 20). */
export class PostgresInviteStore implements InviteStore {
  constructor(private readonly db: PgDatabase) {}

  async create(i: NewInvite): Promise<void> {
    await this.db.query(
      `INSERT INTO invites (token_hash, id, purpose, workspace_id, role, created_by, created_at, expires_at)
       VALUES ($1,$2,$3,$4,$5,$6,$7,$8)`,
      inviteValues(i),
    );
  }

  async get(tokenHash: string): Promise<InviteRecord | undefined> {
    const [r] = await this.db.query<InviteRow>("SELECT * FROM invites WHERE token_hash = $1", [tokenHash]);
    return r && toInvite(r);
  }

  async use(tokenHash: string, userId: string, now = Date.now()): Promise<boolean> {
    const rows = await this.db.query(
      `UPDATE invites SET used_at = $1, used_by = $2 WHERE token_hash = $3 AND used_at IS NULL AND expires_at > $1
       RETURNING id`,
      [now, userId, tokenHash],
    );
    return rows.length === 1;
  }

  async pending(workspaceId: string, now = Date.now()): Promise<InviteRecord[]> {
    const rows = await this.db.query<InviteRow>(
      `SELECT * FROM invites WHERE workspace_id = $1 AND purpose = 'invite' AND used_at IS NULL AND expires_at > $2
       ORDER BY created_at DESC, seq DESC`,
      [workspaceId, now],
    );
    return rows.map(toInvite);
  }

  async revoke(workspaceId: string, id: string): Promise<boolean> {
    const rows = await this.db.query(
      "DELETE FROM invites WHERE workspace_id = $1 AND id = $2 AND used_at IS NULL RETURNING id",
      [workspaceId, id],
    );
    return rows.length > 0;
  }
}
