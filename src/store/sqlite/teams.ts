import { randomUUID } from "node:crypto";
import type Database from "better-sqlite3";
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

// The default workspace row is what an upgraded database's apps and keys belong to (src/store/teams.ts).
const SCHEMA = `
CREATE TABLE IF NOT EXISTS users (
  id TEXT PRIMARY KEY, email TEXT NOT NULL UNIQUE, password_hash TEXT NOT NULL, created_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS workspaces (id TEXT PRIMARY KEY, name TEXT NOT NULL, created_at INTEGER NOT NULL);
INSERT OR IGNORE INTO workspaces (id, name, created_at) VALUES ('${DEFAULT_WORKSPACE_ID}', 'Default', 0);
CREATE TABLE IF NOT EXISTS memberships (
  workspace_id TEXT NOT NULL, user_id TEXT NOT NULL, role TEXT NOT NULL, created_at INTEGER NOT NULL,
  PRIMARY KEY (workspace_id, user_id));
CREATE INDEX IF NOT EXISTS memberships_user ON memberships (user_id);
CREATE TABLE IF NOT EXISTS sessions (
  token_hash TEXT PRIMARY KEY, user_id TEXT NOT NULL, workspace_id TEXT NOT NULL, csrf_token TEXT NOT NULL,
  created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS sessions_user ON sessions (user_id);
CREATE TABLE IF NOT EXISTS resource_owners (
  kind TEXT NOT NULL, id TEXT NOT NULL, workspace_id TEXT NOT NULL, PRIMARY KEY (kind, id));
`;

export interface UserRow {
  id: string;
  email: string;
  password_hash: string;
  created_at: number | string;
}
export interface MembershipRow {
  workspace_id: string;
  user_id: string;
  role: Role;
  created_at: number | string;
}
export interface SessionRow {
  token_hash: string;
  user_id: string;
  workspace_id: string;
  csrf_token: string;
  created_at: number | string;
  expires_at: number | string;
}
export interface WorkspaceRow {
  id: string;
  name: string;
  created_at: number | string;
}

export const toUser = (r: UserRow): UserRecord => ({
  id: r.id,
  email: r.email,
  passwordHash: r.password_hash,
  createdAt: Number(r.created_at),
});
export const toMembership = (r: MembershipRow): MembershipRecord => ({
  workspaceId: r.workspace_id,
  userId: r.user_id,
  role: r.role,
  createdAt: Number(r.created_at),
});
export const toSession = (r: SessionRow): SessionRecord => ({
  tokenHash: r.token_hash,
  userId: r.user_id,
  workspaceId: r.workspace_id,
  csrfToken: r.csrf_token,
  createdAt: Number(r.created_at),
  expiresAt: Number(r.expires_at),
});
export const toWorkspace = (r: WorkspaceRow): WorkspaceRecord => ({
  id: r.id,
  name: r.name,
  createdAt: Number(r.created_at),
});

export const userExists = (email: string) =>
  new TeamStoreError("user.exists", `a user with email ${email} already exists`, { email });

/** Teams on the shared SQLite connection. */
export class SqliteTeamStore implements TeamStore {
  constructor(private readonly db: Database.Database) {
    db.exec(SCHEMA);
  }

  async createUser(u: { email: string; passwordHash: string }): Promise<UserRecord> {
    const rec: UserRecord = {
      id: randomUUID(),
      email: normalizeEmail(u.email),
      passwordHash: u.passwordHash,
      createdAt: Date.now(),
    };
    const r = this.db
      .prepare("INSERT INTO users (id, email, password_hash, created_at) VALUES (?,?,?,?) ON CONFLICT DO NOTHING")
      .run(rec.id, rec.email, rec.passwordHash, rec.createdAt);
    if (r.changes === 0) throw userExists(rec.email);
    return rec;
  }

  async getUser(id: string): Promise<UserRecord | undefined> {
    const r = this.db.prepare("SELECT * FROM users WHERE id = ?").get(id) as UserRow | undefined;
    return r && toUser(r);
  }

  async getUserByEmail(email: string): Promise<UserRecord | undefined> {
    const r = this.db.prepare("SELECT * FROM users WHERE email = ?").get(normalizeEmail(email)) as UserRow | undefined;
    return r && toUser(r);
  }

  async listUsers(): Promise<UserRecord[]> {
    return (this.db.prepare("SELECT * FROM users ORDER BY created_at, rowid").all() as UserRow[]).map(toUser);
  }

  async setPasswordHash(userId: string, passwordHash: string): Promise<boolean> {
    return this.db.prepare("UPDATE users SET password_hash = ? WHERE id = ?").run(passwordHash, userId).changes > 0;
  }

  async countUsers(): Promise<number> {
    return (this.db.prepare("SELECT COUNT(*) AS n FROM users").get() as { n: number }).n;
  }

  async createWorkspace(name: string): Promise<WorkspaceRecord> {
    const rec = { id: randomUUID(), name, createdAt: Date.now() };
    this.db.prepare("INSERT INTO workspaces (id, name, created_at) VALUES (?,?,?)").run(rec.id, name, rec.createdAt);
    return rec;
  }

  async getWorkspace(id: string): Promise<WorkspaceRecord | undefined> {
    const r = this.db.prepare("SELECT * FROM workspaces WHERE id = ?").get(id) as WorkspaceRow | undefined;
    return r && toWorkspace(r);
  }

  async setMembership(workspaceId: string, userId: string, role: Role): Promise<MembershipRecord> {
    if (!(await this.getWorkspace(workspaceId)))
      throw new TeamStoreError("workspace.not_found", `no workspace with id ${workspaceId}`, { workspaceId });
    if (!(await this.getUser(userId)))
      throw new TeamStoreError("user.not_found", `no user with id ${userId}`, { userId });
    this.db
      .prepare(
        `INSERT INTO memberships (workspace_id, user_id, role, created_at) VALUES (?,?,?,?)
         ON CONFLICT (workspace_id, user_id) DO UPDATE SET role = excluded.role`,
      )
      .run(workspaceId, userId, role, Date.now());
    return (await this.getMembership(workspaceId, userId))!;
  }

  async getMembership(workspaceId: string, userId: string): Promise<MembershipRecord | undefined> {
    const r = this.db
      .prepare("SELECT * FROM memberships WHERE workspace_id = ? AND user_id = ?")
      .get(workspaceId, userId) as MembershipRow | undefined;
    return r && toMembership(r);
  }

  async membershipsOf(userId: string): Promise<MembershipRecord[]> {
    const rows = this.db
      .prepare("SELECT * FROM memberships WHERE user_id = ? ORDER BY created_at, rowid")
      .all(userId) as MembershipRow[];
    return rows.map(toMembership);
  }

  async members(workspaceId: string): Promise<MembershipRecord[]> {
    const rows = this.db
      .prepare("SELECT * FROM memberships WHERE workspace_id = ? ORDER BY created_at, rowid")
      .all(workspaceId) as MembershipRow[];
    return rows.map(toMembership);
  }

  async removeMembership(workspaceId: string, userId: string): Promise<boolean> {
    return (
      this.db.prepare("DELETE FROM memberships WHERE workspace_id = ? AND user_id = ?").run(workspaceId, userId)
        .changes > 0
    );
  }

  async createSession(s: SessionRecord): Promise<void> {
    this.db
      .prepare(
        `INSERT INTO sessions (token_hash, user_id, workspace_id, csrf_token, created_at, expires_at)
         VALUES (?,?,?,?,?,?)`,
      )
      .run(s.tokenHash, s.userId, s.workspaceId, s.csrfToken, s.createdAt, s.expiresAt);
  }

  async getSession(tokenHash: string, now = Date.now()): Promise<SessionRecord | undefined> {
    const r = this.db.prepare("SELECT * FROM sessions WHERE token_hash = ?").get(tokenHash) as SessionRow | undefined;
    if (!r) return undefined;
    if (Number(r.expires_at) <= now) {
      await this.deleteSession(tokenHash);
      return undefined;
    }
    return toSession(r);
  }

  async deleteSession(tokenHash: string): Promise<boolean> {
    return this.db.prepare("DELETE FROM sessions WHERE token_hash = ?").run(tokenHash).changes > 0;
  }

  async deleteUserSessions(userId: string): Promise<number> {
    return this.db.prepare("DELETE FROM sessions WHERE user_id = ?").run(userId).changes;
  }

  async assign(kind: ResourceKind, id: string, workspaceId: string): Promise<void> {
    this.db
      .prepare("INSERT INTO resource_owners (kind, id, workspace_id) VALUES (?,?,?) ON CONFLICT DO NOTHING")
      .run(kind, id, workspaceId);
  }

  async ownerOf(kind: ResourceKind, id: string): Promise<string> {
    const r = this.db.prepare("SELECT workspace_id FROM resource_owners WHERE kind = ? AND id = ?").get(kind, id) as
      | { workspace_id: string }
      | undefined;
    return r?.workspace_id ?? DEFAULT_WORKSPACE_ID;
  }

  async owners(kind: ResourceKind): Promise<Map<string, string>> {
    const rows = this.db.prepare("SELECT id, workspace_id FROM resource_owners WHERE kind = ?").all(kind) as {
      id: string;
      workspace_id: string;
    }[];
    return new Map(rows.map((r) => [r.id, r.workspace_id]));
  }
}
