import { randomBytes } from "node:crypto";
import type { Stores } from "../../../store/stores.js";
import type { Role } from "../../../store/teams.js";
import { ApiError } from "../../errors.js";
import type { OidcPerson } from "./mapping.js";

/** Not a scrypt hash, so no password ever verifies against it (password.ts): the account signs in only by SSO. */
const ssoOnlyHash = () => `sso$${randomBytes(16).toString("base64url")}`;

/**
 * The account a provider's person signs in as: the one already linked to (issuer, subject); else an account with
 * the same email, linked now only if the provider verified the email (else anyone able to set that email at the
 * provider could take the account over); else a new account. A new member gets the mapped workspace and role;
 * an existing membership keeps the role an owner gave it.
 */
export async function accountFor(
  stores: Stores,
  issuer: string,
  p: OidcPerson,
  mapped: { workspaceId: string; role: Role },
): Promise<{ userId: string; workspaceId: string }> {
  const { teams, identities } = stores;
  if (!(await teams.getWorkspace(mapped.workspaceId)))
    throw new ApiError(
      500,
      "oidc.workspace_not_found",
      `auth.oidc.mapping names workspace "${mapped.workspaceId}", which does not exist; fix the mapping rule`,
    );
  let userId = (await identities.get(issuer, p.subject))?.userId;
  if (!userId) {
    const existing = await teams.getUserByEmail(p.email);
    if (existing && !p.emailVerified)
      throw new ApiError(
        403,
        "oidc.unverified_email",
        `an account for ${p.email} exists, and the provider did not say the email is verified, so the sign-in cannot be linked to it`,
      );
    const user = existing ?? (await teams.createUser({ email: p.email, passwordHash: ssoOnlyHash() }));
    userId = (await identities.link({ issuer, subject: p.subject, userId: user.id, email: p.email })).userId;
  }
  if (!(await teams.getMembership(mapped.workspaceId, userId)))
    await teams.setMembership(mapped.workspaceId, userId, mapped.role);
  return { userId, workspaceId: mapped.workspaceId };
}
