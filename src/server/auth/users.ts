import { z } from "zod";
import type { Stores } from "../../store/stores.js";
import { DEFAULT_WORKSPACE_ID, ROLES, type Role, TeamStoreError, type UserRecord } from "../../store/teams.js";
import { hashPassword, passwordProblem } from "./password.js";

const Email = z.email();

/** Why an email and password cannot make an account (the field named), or undefined when they can. */
export function newAccountProblem(
  email: string,
  password: string,
): { code: string; message: string; field: string } | undefined {
  const e = email.trim();
  if (!Email.safeParse(e).success)
    return { code: "user.invalid_email", message: `email: "${e}" is not an email address`, field: "email" };
  const problem = passwordProblem(password);
  if (problem) return { code: "user.invalid_password", message: `password: ${problem}`, field: "password" };
  return undefined;
}

/**
 * A new account with its role in a workspace (the default one unless named). The email and password rules
 * are checked before anything is stored, each refusal naming the field.
 */
export async function createMember(
  stores: Stores,
  o: { email: string; password: string; role: string; workspaceId?: string },
): Promise<{ user: UserRecord; role: Role; workspaceId: string }> {
  const email = o.email.trim();
  if (!Email.safeParse(email).success)
    throw new TeamStoreError("user.invalid_email", `email: "${email}" is not an email address`, { field: "email" });
  if (!(ROLES as readonly string[]).includes(o.role))
    throw new TeamStoreError("user.invalid_role", `role: "${o.role}" is not one of ${ROLES.join(", ")}`, {
      field: "role",
    });
  const problem = passwordProblem(o.password);
  if (problem) throw new TeamStoreError("user.invalid_password", `password: ${problem}`, { field: "password" });
  const workspaceId = o.workspaceId ?? DEFAULT_WORKSPACE_ID;
  if (!(await stores.teams.getWorkspace(workspaceId)))
    throw new TeamStoreError("workspace.not_found", `no workspace with id ${workspaceId}`, { workspaceId });
  const user = await stores.teams.createUser({ email, passwordHash: await hashPassword(o.password) });
  await stores.teams.setMembership(workspaceId, user.id, o.role as Role);
  return { user, role: o.role as Role, workspaceId };
}
