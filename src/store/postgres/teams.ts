import { randomUUID } from "node:crypto";
import {
  type MembershipRow,
  type SessionRow,
  toMembership,
  toSession,
  toUser,
  type UserRow,
  userExists,
} from "../sqlite/teams.js";
import {
  DEFAULT_WORKSPACE_ID,
  type MembershipRecord,
  normalizeEmail,
  type ResourceKind,
  type Role,
  type SessionRecord,
  type TeamStore,
  TeamStoreError,
  type UserRecord,
  type WorkspaceRecord,
} from "../teams.js";
import type { PgDatabase } from "./database.js";
import { json, toJson } from "./json.js";

interface PgWorkspaceRow {
  id: string;
  name: string;
  created_at: number;
}
const toWorkspace = (r: PgWorkspaceRow): WorkspaceRecord => ({
  id: r.id,
  name: json<string>(r.name),
  createdAt: r.created_at,
});

/** Teams on PostgreSQL (migration 13). */
export class PostgresTeamStore implements TeamStore {
  constructor(private readonly db: PgDatabase) {}

  async createUser(u: { email: string; passwordHash: string }): Promise<UserRecord> {
    const rec: UserRecord = {
      id: randomUUID(),
      email: normalizeEmail(u.email),
      passwordHash: u.passwordHash,
      createdAt: Date.now(),
    };
    const rows = await this.db.query(
      `INSERT INTO users (id, email, password_hash, created_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT DO NOTHING RETURNING id`,
      [rec.id, rec.email, rec.passwordHash, rec.createdAt],
    );
    if (rows.length === 0) throw userExists(rec.email);
    return rec;
  }

  async getUser(id: string): Promise<UserRecord | undefined> {
    const [r] = await this.db.query<UserRow>("SELECT * FROM users WHERE id = $1", [id]);
    return r && toUser(r);
  }

  async getUserByEmail(email: string): Promise<UserRecord | undefined> {
    const [r] = await this.db.query<UserRow>("SELECT * FROM users WHERE email = $1", [normalizeEmail(email)]);
    return r && toUser(r);
  }

  async listUsers(): Promise<UserRecord[]> {
    return (await this.db.query<UserRow>("SELECT * FROM users ORDER BY created_at, seq")).map(toUser);
  }

  async setPasswordHash(userId: string, passwordHash: string): Promise<boolean> {
    const rows = await this.db.query("UPDATE users SET password_hash = $1 WHERE id = $2 RETURNING id", [
      passwordHash,
      userId,
    ]);
    return rows.length > 0;
  }

  async countUsers(): Promise<number> {
    const [r] = await this.db.query<{ n: string }>("SELECT COUNT(*) AS n FROM users");
    return Number(r!.n);
  }

  async createWorkspace(name: string): Promise<WorkspaceRecord> {
    const rec = { id: randomUUID(), name, createdAt: Date.now() };
    await this.db.query("INSERT INTO workspaces (id, name, created_at) VALUES ($1, $2, $3)", [
      rec.id,
      toJson(name),
      rec.createdAt,
    ]);
    return rec;
  }

  async getWorkspace(id: string): Promise<WorkspaceRecord | undefined> {
    const [r] = await this.db.query<PgWorkspaceRow>("SELECT * FROM workspaces WHERE id = $1", [id]);
    return r && toWorkspace(r);
  }

  async setMembership(workspaceId: string, userId: string, role: Role): Promise<MembershipRecord> {
    if (!(await this.getWorkspace(workspaceId)))
      throw new TeamStoreError("workspace.not_found", `no workspace with id ${workspaceId}`, { workspaceId });
    if (!(await this.getUser(userId)))
      throw new TeamStoreError("user.not_found", `no user with id ${userId}`, { userId });
    const [r] = await this.db.query<MembershipRow>(
      `INSERT INTO memberships (workspace_id, user_id, role, created_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (workspace_id, user_id) DO UPDATE SET role = excluded.role RETURNING *`,
      [workspaceId, userId, role, Date.now()],
    );
    return toMembership(r!);
  }

  async getMembership(workspaceId: string, userId: string): Promise<MembershipRecord | undefined> {
    const [r] = await this.db.query<MembershipRow>(
      "SELECT * FROM memberships WHERE workspace_id = $1 AND user_id = $2",
      [workspaceId, userId],
    );
    return r && toMembership(r);
  }

  async membershipsOf(userId: string): Promise<MembershipRecord[]> {
    const rows = await this.db.query<MembershipRow>(
      "SELECT * FROM memberships WHERE user_id = $1 ORDER BY created_at, seq",
      [userId],
    );
    return rows.map(toMembership);
  }

  async members(workspaceId: string): Promise<MembershipRecord[]> {
    const rows = await this.db.query<MembershipRow>(
      "SELECT * FROM memberships WHERE workspace_id = $1 ORDER BY created_at, seq",
      [workspaceId],
    );
    return rows.map(toMembership);
  }

  async removeMembership(workspaceId: string, userId: string): Promise<boolean> {
    const rows = await this.db.query(
      "DELETE FROM memberships WHERE workspace_id = $1 AND user_id = $2 RETURNING user_id",
      [workspaceId, userId],
    );
    return rows.length > 0;
  }

  async createSession(s: SessionRecord): Promise<void> {
    await this.db.query(
      `INSERT INTO sessions (token_hash, user_id, workspace_id, csrf_token, created_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6)`,
      [s.tokenHash, s.userId, s.workspaceId, s.csrfToken, s.createdAt, s.expiresAt],
    );
  }

  async getSession(tokenHash: string, now = Date.now()): Promise<SessionRecord | undefined> {
    const [r] = await this.db.query<SessionRow>("SELECT * FROM sessions WHERE token_hash = $1", [tokenHash]);
    if (!r) return undefined;
    if (Number(r.expires_at) <= now) {
      await this.deleteSession(tokenHash);
      return undefined;
    }
    return toSession(r);
  }

  async deleteSession(tokenHash: string): Promise<boolean> {
    const rows = await this.db.query("DELETE FROM sessions WHERE token_hash = $1 RETURNING user_id", [tokenHash]);
    return rows.length > 0;
  }

  async deleteUserSessions(userId: string): Promise<number> {
    const rows = await this.db.query("DELETE FROM sessions WHERE user_id = $1 RETURNING user_id", [userId]);
    return rows.length;
  }

  async assign(kind: ResourceKind, id: string, workspaceId: string): Promise<void> {
    await this.db.query(
      "INSERT INTO resource_owners (kind, id, workspace_id) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
      [kind, id, workspaceId],
    );
  }

  async ownerOf(kind: ResourceKind, id: string): Promise<string> {
    const [r] = await this.db.query<{ workspace_id: string }>(
      "SELECT workspace_id FROM resource_owners WHERE kind = $1 AND id = $2",
      [kind, id],
    );
    return r?.workspace_id ?? DEFAULT_WORKSPACE_ID;
  }

  async owners(kind: ResourceKind): Promise<Map<string, string>> {
    const rows = await this.db.query<{ id: string; workspace_id: string }>(
      "SELECT id, workspace_id FROM resource_owners WHERE kind = $1",
      [kind],
    );
    return new Map(rows.map((r) => [r.id, r.workspace_id]));
  }
}
