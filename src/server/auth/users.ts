import { z } from "zod";
import type { Stores } from "../../store/stores.js";
import {
  DEFAULT_WORKSPACE_ID,
  ROLES,
  type Role,
  TeamStoreError,
  type UserRecord,
} from "../../store/teams.js";
import { hashPassword, passwordProblem } from "./password.js";

const Email = z.email();

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
