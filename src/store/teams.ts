import { WeftError } from "../ir/errors.js";

/**
 * Teams: users, workspaces, memberships with a role, browser sessions, and which workspace owns an app or a
 * knowledge base. Implemented in memory, on SQLite and on PostgreSQL (migration 13).
 *
 * A database written before teams existed has none of this: everything in it belongs to the `default`
 * workspace (an app or base without an owner row is the default workspace's), which every store creates
 * when it opens, so an upgrade needs no data rewrite.
 */
export const ROLES = ["owner", "admin", "editor", "runner", "viewer"] as const;
export type Role = (typeof ROLES)[number];

export const DEFAULT_WORKSPACE_ID = "default";

/** Resources a workspace owns by id; runs, versions, drafts and proposals follow their app. */
export type ResourceKind = "app" | "knowledge";

export interface UserRecord {
  id: string;
  /** Lower-cased and trimmed: one account per address whatever its spelling. */
  email: string;
  /** `scrypt$…` (src/server/auth/password.ts); never leaves the server. */
  passwordHash: string;
  createdAt: number;
}

export interface WorkspaceRecord {
  id: string;
  name: string;
  createdAt: number;
}

export interface MembershipRecord {
  workspaceId: string;
  userId: string;
  role: Role;
  createdAt: number;
}

export interface SessionRecord {
  /** SHA-256 of the cookie's token: a leaked database holds no usable session. */
  tokenHash: string;
  userId: string;
  workspaceId: string;
  /** The CSRF token the browser echoes in `X-CSRF-Token` (its cookie is readable by the page, this one is not). */
  csrfToken: string;
  createdAt: number;
  expiresAt: number;
}

/** A team operation refused for a reason the caller can fix (an email already taken, an unknown workspace). */
export class TeamStoreError extends WeftError {}

export const normalizeEmail = (email: string) => email.trim().toLowerCase();

export interface TeamStore {
  /** Refused with `user.exists` when the (normalised) email has an account. */
  createUser(u: { email: string; passwordHash: string }): Promise<UserRecord>;
  getUser(id: string): Promise<UserRecord | undefined>;
  getUserByEmail(email: string): Promise<UserRecord | undefined>;
  listUsers(): Promise<UserRecord[]>;
  setPasswordHash(userId: string, passwordHash: string): Promise<boolean>;
  countUsers(): Promise<number>;

  createWorkspace(name: string): Promise<WorkspaceRecord>;
  getWorkspace(id: string): Promise<WorkspaceRecord | undefined>;

  /** Adds the member or changes its role; refused with `workspace.not_found` / `user.not_found`. */
  setMembership(workspaceId: string, userId: string, role: Role): Promise<MembershipRecord>;
  getMembership(workspaceId: string, userId: string): Promise<MembershipRecord | undefined>;
  /** The user's memberships, oldest first (the first is where a login lands). */
  membershipsOf(userId: string): Promise<MembershipRecord[]>;
  members(workspaceId: string): Promise<MembershipRecord[]>;
  removeMembership(workspaceId: string, userId: string): Promise<boolean>;

  createSession(s: SessionRecord): Promise<void>;
  /** Undefined when unknown or expired (an expired one is deleted). */
  getSession(tokenHash: string, now?: number): Promise<SessionRecord | undefined>;
  deleteSession(tokenHash: string): Promise<boolean>;
  /** Logout everywhere (and after a password change): how many sessions ended. */
  deleteUserSessions(userId: string): Promise<number>;

  /** Records which workspace owns a resource (first owner wins: an id never moves between workspaces). */
  assign(kind: ResourceKind, id: string, workspaceId: string): Promise<void>;
  /** The owning workspace; `default` for resources made before teams (no row). */
  ownerOf(kind: ResourceKind, id: string): Promise<string>;
  /** Every owner row of `kind` (id → workspace); ids without one are the default workspace's. */
  owners(kind: ResourceKind): Promise<Map<string, string>>;
}
