import type Database from "better-sqlite3";
import type { InvitePurpose, InviteRecord, InviteStore, NewInvite } from "../invites.js";
import type { Role } from "../teams.js";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS invites (
  token_hash TEXT PRIMARY KEY, id TEXT NOT NULL UNIQUE, purpose TEXT NOT NULL, workspace_id TEXT NOT NULL,
  role TEXT NOT NULL, created_by TEXT, created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL, used_at INTEGER,
  used_by TEXT);
`;

export interface InviteRow {
  token_hash: string;
  id: string;
  purpose: InvitePurpose;
  workspace_id: string;
  role: Role;
  created_by: string | null;
  created_at: number | string;
  expires_at: number | string;
  used_at: number | string | null;
  used_by: string | null;
}

export const toInvite = (r: InviteRow): InviteRecord => ({
  id: r.id,
  tokenHash: r.token_hash,
  purpose: r.purpose,
  workspaceId: r.workspace_id,
  role: r.role,
  ...(r.created_by === null ? {} : { createdBy: r.created_by }),
  createdAt: Number(r.created_at),
  expiresAt: Number(r.expires_at),
  ...(r.used_at === null ? {} : { usedAt: Number(r.used_at) }),
  ...(r.used_by === null ? {} : { usedBy: r.used_by }),
});

export const inviteValues = (i: NewInvite) => [
  i.tokenHash,
  i.id,
  i.purpose,
  i.workspaceId,
  i.role,
  i.createdBy ?? null,
  i.createdAt,
  i.expiresAt,
];

export class SqliteInviteStore implements InviteStore {
  constructor(private readonly db: Database.Database) {
    db.exec(SCHEMA);
  }

  async create(i: NewInvite): Promise<void> {
    this.db
      .prepare(
        `INSERT INTO invites (token_hash, id, purpose, workspace_id, role, created_by, created_at, expires_at)
         VALUES (?,?,?,?,?,?,?,?)`,
      )
      .run(...inviteValues(i));
  }

  async get(tokenHash: string): Promise<InviteRecord | undefined> {
    const r = this.db.prepare("SELECT * FROM invites WHERE token_hash = ?").get(tokenHash) as InviteRow | undefined;
    return r && toInvite(r);
  }

  async use(tokenHash: string, userId: string, now = Date.now()): Promise<boolean> {
    const r = this.db
      .prepare(
        "UPDATE invites SET used_at = ?, used_by = ? WHERE token_hash = ? AND used_at IS NULL AND expires_at > ?",
      )
      .run(now, userId, tokenHash, now);
    return r.changes === 1;
  }

  async pending(workspaceId: string, now = Date.now()): Promise<InviteRecord[]> {
    const rows = this.db
      .prepare(
        `SELECT * FROM invites WHERE workspace_id = ? AND purpose = 'invite' AND used_at IS NULL AND expires_at > ?
         ORDER BY created_at DESC, rowid DESC`,
      )
      .all(workspaceId, now) as InviteRow[];
    return rows.map(toInvite);
  }

  async revoke(workspaceId: string, id: string): Promise<boolean> {
    return (
      this.db.prepare("DELETE FROM invites WHERE workspace_id = ? AND id = ? AND used_at IS NULL").run(workspaceId, id)
        .changes > 0
    );
  }
}
