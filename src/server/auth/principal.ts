import type { Role, SessionRecord } from "../../store/teams.js";

/** Who a request acts as: an API key (its workspace and role; keys before teams: default, owner) or a signed-in user. */
export interface Principal {
  kind: "key" | "session";
  workspaceId: string;
  role: Role;
  userId?: string;
  /** Who, for the audit log: the user's or the key's id, and a name a reader knows (email, key name). */
  actorId: string;
  actorLabel: string;
  session?: SessionRecord;
}

declare module "hono" {
  interface ContextVariableMap {
    principal: Principal;
  }
}
