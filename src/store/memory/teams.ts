import { randomUUID } from "node:crypto";
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

/** Teams in process; same contract as the SQL stores. */
export class MemoryTeamStore implements TeamStore {
  private users = new Map<string, UserRecord>();
  private workspaces = new Map<string, WorkspaceRecord>([
    [DEFAULT_WORKSPACE_ID, { id: DEFAULT_WORKSPACE_ID, name: "Default", createdAt: 0 }],
  ]);
  private memberships: MembershipRecord[] = [];
  private sessions = new Map<string, SessionRecord>();
  private ownerRows = new Map<string, string>();

  async createUser(u: { email: string; passwordHash: string }): Promise<UserRecord> {
    const email = normalizeEmail(u.email);
    if (await this.getUserByEmail(email))
      throw new TeamStoreError("user.exists", `a user with email ${email} already exists`, { email });
    const rec: UserRecord = { id: randomUUID(), email, passwordHash: u.passwordHash, createdAt: Date.now() };
    this.users.set(rec.id, rec);
    return { ...rec };
  }

  async getUser(id: string): Promise<UserRecord | undefined> {
    const u = this.users.get(id);
    return u && { ...u };
  }

  async getUserByEmail(email: string): Promise<UserRecord | undefined> {
    const e = normalizeEmail(email);
    const u = [...this.users.values()].find((x) => x.email === e);
    return u && { ...u };
  }

  async listUsers(): Promise<UserRecord[]> {
    return [...this.users.values()].sort((a, b) => a.createdAt - b.createdAt).map((u) => ({ ...u }));
  }

  async setPasswordHash(userId: string, passwordHash: string): Promise<boolean> {
    const u = this.users.get(userId);
    if (!u) return false;
    u.passwordHash = passwordHash;
    return true;
  }

  async countUsers(): Promise<number> {
    return this.users.size;
  }

  async createWorkspace(name: string): Promise<WorkspaceRecord> {
    const rec = { id: randomUUID(), name, createdAt: Date.now() };
    this.workspaces.set(rec.id, rec);
    return { ...rec };
  }

  async getWorkspace(id: string): Promise<WorkspaceRecord | undefined> {
    const w = this.workspaces.get(id);
    return w && { ...w };
  }

  async setMembership(workspaceId: string, userId: string, role: Role): Promise<MembershipRecord> {
    if (!this.workspaces.has(workspaceId))
      throw new TeamStoreError("workspace.not_found", `no workspace with id ${workspaceId}`, { workspaceId });
    if (!this.users.has(userId)) throw new TeamStoreError("user.not_found", `no user with id ${userId}`, { userId });
    const have = this.memberships.find((m) => m.workspaceId === workspaceId && m.userId === userId);
    if (have) {
      have.role = role;
      return { ...have };
    }
    const rec = { workspaceId, userId, role, createdAt: Date.now() };
    this.memberships.push(rec);
    return { ...rec };
  }

  async getMembership(workspaceId: string, userId: string): Promise<MembershipRecord | undefined> {
    const m = this.memberships.find((x) => x.workspaceId === workspaceId && x.userId === userId);
    return m && { ...m };
  }

  async membershipsOf(userId: string): Promise<MembershipRecord[]> {
    return this.memberships.filter((m) => m.userId === userId).map((m) => ({ ...m }));
  }

  async members(workspaceId: string): Promise<MembershipRecord[]> {
    return this.memberships.filter((m) => m.workspaceId === workspaceId).map((m) => ({ ...m }));
  }

  async removeMembership(workspaceId: string, userId: string): Promise<boolean> {
    const i = this.memberships.findIndex((m) => m.workspaceId === workspaceId && m.userId === userId);
    if (i < 0) return false;
    this.memberships.splice(i, 1);
    return true;
  }

  async createSession(s: SessionRecord): Promise<void> {
    this.sessions.set(s.tokenHash, { ...s });
  }

  async getSession(tokenHash: string, now = Date.now()): Promise<SessionRecord | undefined> {
    const s = this.sessions.get(tokenHash);
    if (!s) return undefined;
    if (s.expiresAt <= now) {
      this.sessions.delete(tokenHash);
      return undefined;
    }
    return { ...s };
  }

  async deleteSession(tokenHash: string): Promise<boolean> {
    return this.sessions.delete(tokenHash);
  }

  async deleteUserSessions(userId: string): Promise<number> {
    let n = 0;
    for (const [k, s] of this.sessions)
      if (s.userId === userId) {
        this.sessions.delete(k);
        n++;
      }
    return n;
  }

  async assign(kind: ResourceKind, id: string, workspaceId: string): Promise<void> {
    const k = `${kind}\u0000${id}`;
    if (!this.ownerRows.has(k)) this.ownerRows.set(k, workspaceId);
  }

  async ownerOf(kind: ResourceKind, id: string): Promise<string> {
    return this.ownerRows.get(`${kind}\u0000${id}`) ?? DEFAULT_WORKSPACE_ID;
  }

  async owners(kind: ResourceKind): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (const [k, ws] of this.ownerRows) {
      const [kk, id] = k.split("\u0000") as [string, string];
      if (kk === kind) out.set(id, ws);
    }
    return out;
  }
}
