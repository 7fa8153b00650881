import { userInfo } from "node:os";
import type { NewAuditEntry } from "../store/audit.js";
import type { Stores } from "../store/stores.js";
import { DEFAULT_WORKSPACE_ID } from "../store/teams.js";

/** Who ran a CLI command that changed the database: the operating-system account (the CLI has no sign-in). */
function osUser(): string {
  try {
    return userInfo().username;
  } catch {
    return process.env.USER ?? "unknown";
  }
}

/** How the CLI's actor is named in audit entries and override records. */
export const cliActorLabel = () => `cli ${osUser()}`;

/** Records a CLI change in the audit log (actor `cli`, the OS user), in the workspace it acted in. */
export async function recordCliAudit(
  stores: Stores,
  e: Pick<NewAuditEntry, "action" | "target" | "detail"> & { workspaceId?: string },
): Promise<void> {
  const user = osUser();
  await stores.audit.record({
    workspaceId: e.workspaceId ?? DEFAULT_WORKSPACE_ID,
    actorKind: "cli",
    actorId: user,
    actorLabel: cliActorLabel(),
    action: e.action,
    ...(e.target ? { target: e.target } : {}),
    ...(e.detail ? { detail: e.detail } : {}),
  });
}
