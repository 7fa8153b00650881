import type { Role } from "./teams.js";

/**
 * Links that make an account a member: an owner's or admin's invitation to a workspace with a role, and the
 * first-run setup link `weft serve` prints on an empty database (an owner of the default workspace), and the
 * sign-in link of `weft serve --sample` (its `createdBy` is the user it signs in). Only the
 * token's SHA-256 is stored; a link works once, until it expires. Memory, SQLite and PostgreSQL (migration 20).
 */
export type InvitePurpose = "invite" | "setup" | "signin";

export interface InviteRecord {
  id: string;
  /** SHA-256 of the link's token. */
  tokenHash: string;
  purpose: InvitePurpose;
  workspaceId: string;
  role: Role;
  /** The inviting user's id (none for a setup link). */
  createdBy?: string;
  createdAt: number;
  expiresAt: number;
  usedAt?: number;
  /** Who used it: the accepting email (an invitation, a setup link) or the signed-in user's id. */
  usedBy?: string;
}

export type NewInvite = Omit<InviteRecord, "usedAt" | "usedBy">;

export interface InviteStore {
  create(i: NewInvite): Promise<void>;
  get(tokenHash: string): Promise<InviteRecord | undefined>;
  /**
   * Marks the link used by `who` when it is unused and unexpired at `now`: true for exactly one caller, however
   * many accept it at once.
   */
  use(tokenHash: string, who: string, now?: number): Promise<boolean>;
  /** The workspace's unused, unexpired invitations (setup links are not listed), newest first. */
  pending(workspaceId: string, now?: number): Promise<InviteRecord[]>;
  /** Deletes an unused invitation of the workspace. */
  revoke(workspaceId: string, id: string): Promise<boolean>;
}
