import { randomBytes, randomUUID } from "node:crypto";
import type { InvitePurpose, InviteRecord } from "../../store/invites.js";
import type { Stores } from "../../store/stores.js";
import { DEFAULT_WORKSPACE_ID, type Role } from "../../store/teams.js";
import { hashToken } from "./session.js";

export const INVITE_TTL_MS = 7 * 24 * 3600_000;
export const SETUP_TTL_MS = 24 * 3600_000;
export const SIGNIN_TTL_MS = 24 * 3600_000;

/** The studio's address for a link: it reads `?link=` on load (web/src/components/LinkPage.tsx). */
export const linkUrl = (base: string, token: string) => `${base.replace(/\/$/, "")}/?link=${token}`;

/** A new single-use link; only the token's hash is stored, the token is returned this once. */
export async function createLink(
  stores: Stores,
  o: { purpose: InvitePurpose; workspaceId?: string; role: Role; createdBy?: string; ttlMs: number; now?: number },
): Promise<{ token: string; invite: InviteRecord }> {
  const token = randomBytes(32).toString("base64url");
  const now = o.now ?? Date.now();
  const invite: InviteRecord = {
    id: randomUUID(),
    tokenHash: hashToken(token),
    purpose: o.purpose,
    workspaceId: o.workspaceId ?? DEFAULT_WORKSPACE_ID,
    role: o.role,
    ...(o.createdBy ? { createdBy: o.createdBy } : {}),
    createdAt: now,
    expiresAt: now + o.ttlMs,
  };
  await stores.invites.create(invite);
  return { token, invite };
}

/** First run: a setup link for the default workspace's owner, while the database has no account. */
export async function setupLinkIfEmpty(stores: Stores, base: string): Promise<string | undefined> {
  if ((await stores.teams.countUsers()) > 0) return undefined;
  const { token } = await createLink(stores, { purpose: "setup", role: "owner", ttlMs: SETUP_TTL_MS });
  return linkUrl(base, token);
}
