import type { Role, SessionRecord } from "../../store/teams.js";

/** Who a request acts as: an API key (the default workspace, all rights, as before teams) or a signed-in user. */
export interface Principal {
  kind: "key" | "session";
  workspaceId: string;
  role: Role;
  userId?: string;
  session?: SessionRecord;
}

declare module "hono" {
  interface ContextVariableMap {
    principal: Principal;
  }
}
