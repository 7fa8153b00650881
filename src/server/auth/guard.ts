import type { Context, MiddlewareHandler } from "hono";
import { ROLES, type Role } from "../../store/teams.js";
import type { ServerDeps } from "../context.js";
import { ApiError } from "../errors.js";
import { auditEntryOf, audited, recordAudit } from "./audit.js";
import { routeMatcher } from "./match.js";
import { allows } from "./permissions.js";
import type { Principal } from "./principal.js";
import { checkScope } from "./scope.js";
import { csrfMatches, hashToken, sessionToken } from "./session.js";

const SAFE = new Set(["GET", "HEAD", "OPTIONS"]);

function bearer(header: string | undefined): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(header ?? "")?.[1];
}

/** Who the request is, from a Bearer API key or the session cookie; 401 when neither is valid. */
async function authenticate(deps: ServerDeps, c: Context): Promise<Principal> {
  const key = bearer(c.req.header("authorization"));
  if (key) {
    const rec = await deps.apps.findKey(key);
    if (!rec) throw new ApiError(401, "auth.invalid_key", "the API key is not valid");
    // Keys made before teams are the default workspace's owners (every right), which the stores' defaults say.
    const role = (ROLES as readonly string[]).includes(rec.role) ? (rec.role as Role) : "viewer";
    return { kind: "key", workspaceId: rec.workspaceId, role, actorId: rec.id, actorLabel: `key ${rec.name}` };
  }
  const token = sessionToken(c);
  if (!token)
    throw new ApiError(
      401,
      "auth.missing_key",
      "sign in (POST /api/auth/login) or send an API key as `Authorization: Bearer <key>` (create one with `weft keys create`)",
    );
  const { teams } = deps.stores;
  const session = await teams.getSession(hashToken(token));
  if (!session) throw new ApiError(401, "auth.session_expired", "the session has ended; sign in again");
  const member = await teams.getMembership(session.workspaceId, session.userId);
  if (!member)
    throw new ApiError(401, "auth.not_member", "you are no longer a member of this workspace; sign in again");
  if (!SAFE.has(c.req.method) && !csrfMatches(c, session))
    throw new ApiError(
      403,
      "auth.csrf",
      "the request lacks the X-CSRF-Token header matching the weft_csrf cookie (sent by the studio with each change)",
    );
  const user = await teams.getUser(session.userId);
  return {
    kind: "session",
    workspaceId: session.workspaceId,
    role: member.role,
    userId: session.userId,
    session,
    actorId: session.userId,
    actorLabel: user?.email ?? session.userId,
  };
}

/**
 * The one place `/api` is guarded: the route's table entry (route-table.ts), who is asking, the resource's
 * workspace, then the role's permission. A route with no entry answers 404, as if it did not exist.
 */
export function apiGuard(deps: ServerDeps): MiddlewareHandler {
  const match = routeMatcher();
  return async (c, next) => {
    const path = new URL(c.req.url).pathname;
    const m = match(c.req.method, path);
    if (m?.entry.need === "public") return next();
    const who = await authenticate(deps, c);
    if (!m) throw new ApiError(404, "route.not_found", `no API route ${c.req.method} ${path}`);
    await checkScope(deps, m, who.workspaceId);
    if (m.entry.need !== "session" && !allows(who.role, m.entry.need))
      throw new ApiError(
        403,
        "auth.forbidden",
        `the ${who.role} role may not ${m.entry.need} (${m.entry.method} ${m.entry.path})`,
        undefined,
        {
          role: who.role,
          permission: m.entry.need,
        },
      );
    c.set("principal", who);
    await next();
    if (audited(c.req.method, m) && c.res.status < 400) await recordAudit(deps, auditEntryOf(c, who, m));
  };
}
