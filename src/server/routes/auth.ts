import { getConnInfo } from "@hono/node-server/conninfo";
import { type Context, Hono } from "hono";
import { z } from "zod";
import { normalizeEmail } from "../../store/teams.js";
import { dummyHash, verifyPassword } from "../auth/password.js";
import { allows, PERMISSIONS } from "../auth/permissions.js";
import { clearSessionCookies, hashToken, sessionToken, startSession } from "../auth/session.js";
import type { LoginThrottle } from "../auth/throttle.js";
import { readJson, type ServerDeps } from "../context.js";
import { ApiError } from "../errors.js";

const LoginBody = z.object({ email: z.string().min(1).max(320), password: z.string().max(1024) });

/** The client's address as the socket saw it (no proxy headers: a client could forge those to dodge throttling). */
export function clientAddress(c: Context): string {
  try {
    return getConnInfo(c).remote.address ?? "unknown";
  } catch {
    return "unknown";
  }
}

// One answer for an unknown email and a wrong password, so the login cannot tell which accounts exist.
const invalid = () => new ApiError(401, "auth.invalid_credentials", "the email or the password is wrong");

/** Signing in (throttled per address and account) and out, of this session or of every one of the account. */
function sessionRoutes(r: Hono, deps: ServerDeps, throttle: LoginThrottle): void {
  const { teams } = deps.stores;

  r.post("/login", async (c) => {
    const parsed = LoginBody.safeParse(await readJson(c));
    if (!parsed.success) throw new ApiError(400, "auth.invalid_request", 'send JSON {"email": "…", "password": "…"}');
    const account = normalizeEmail(parsed.data.email);
    const from = clientAddress(c);
    const verdict = throttle.check(account, from);
    if (!verdict.allowed) {
      c.header("Retry-After", String(Math.ceil(verdict.retryAfterMs / 1000)));
      throw new ApiError(429, "auth.throttled", "too many failed sign-ins; wait before trying again");
    }
    const user = await teams.getUserByEmail(account);
    const ok = await verifyPassword(parsed.data.password, user?.passwordHash ?? (await dummyHash()));
    if (!user || !ok) {
      throttle.fail(account, from);
      throw invalid();
    }
    throttle.succeed(account, from);
    const [first] = await teams.membershipsOf(user.id);
    if (!first)
      throw new ApiError(
        403,
        "auth.no_workspace",
        "this account is not a member of any workspace; ask an owner to add it",
      );
    const s = await startSession(c, teams, user.id, first.workspaceId);
    return c.json({
      user: { id: user.id, email: user.email },
      workspace: await teams.getWorkspace(first.workspaceId),
      role: first.role,
      csrfToken: s.csrfToken,
    });
  });

  r.post("/logout", async (c) => {
    const body = await readJson(c);
    const who = c.get("principal");
    let ended = 0;
    if (who.kind === "session" && body.everywhere === true) ended = await teams.deleteUserSessions(who.userId!);
    else {
      const token = sessionToken(c);
      if (token && (await teams.deleteSession(hashToken(token)))) ended = 1;
    }
    clearSessionCookies(c);
    return c.json({ ok: true, sessionsEnded: ended });
  });
}

/** The studio's workspace switcher: where the account is a member, and moving this session to one of them. */
function workspaceRoutes(r: Hono, deps: ServerDeps): void {
  const { teams } = deps.stores;

  r.get("/workspaces", async (c) => {
    const who = c.get("principal");
    if (!who.userId)
      return c.json({
        workspaces: [{ workspace: await teams.getWorkspace(who.workspaceId), role: who.role, current: true }],
      });
    const list = await Promise.all(
      (await teams.membershipsOf(who.userId)).map(async (m) => ({
        workspace: await teams.getWorkspace(m.workspaceId),
        role: m.role,
        current: m.workspaceId === who.workspaceId,
      })),
    );
    return c.json({ workspaces: list });
  });

  r.post("/switch", async (c) => {
    const who = c.get("principal");
    const id = (await readJson(c)).workspaceId;
    if (typeof id !== "string") throw new ApiError(400, "auth.invalid_request", 'send JSON {"workspaceId": "…"}');
    if (who.kind !== "session" || !who.userId)
      throw new ApiError(
        400,
        "auth.key_workspace",
        "an API key acts in its own workspace; sign in to switch workspaces",
      );
    const m = await teams.getMembership(id, who.userId);
    if (!m) throw new ApiError(404, "workspace.not_found", `you are not a member of a workspace with id ${id}`);
    const token = sessionToken(c);
    if (token) await teams.deleteSession(hashToken(token));
    const s = await startSession(c, teams, who.userId, id);
    return c.json({ workspace: await teams.getWorkspace(id), role: m.role, csrfToken: s.csrfToken });
  });
}

/** `/api/auth`: sign-in and out, the session's workspace, and who the caller is (`/me`). */
export function authRoutes(deps: ServerDeps, throttle: LoginThrottle): Hono {
  const r = new Hono();
  const { teams } = deps.stores;
  sessionRoutes(r, deps, throttle);
  workspaceRoutes(r, deps);
  r.get("/me", async (c) => {
    const who = c.get("principal");
    const user = who.userId ? await teams.getUser(who.userId) : undefined;
    return c.json({
      kind: who.kind,
      user: user && { id: user.id, email: user.email },
      workspace: await teams.getWorkspace(who.workspaceId),
      role: who.role,
      permissions: PERMISSIONS.filter((p) => allows(who.role, p)),
      ...(who.session ? { csrfToken: who.session.csrfToken } : {}),
    });
  });
  return r;
}
