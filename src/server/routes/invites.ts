import { type Context, Hono } from "hono";
import { z } from "zod";
import type { InviteRecord } from "../../store/invites.js";
import { normalizeEmail, TeamStoreError, type UserRecord } from "../../store/teams.js";
import { recordAudit } from "../auth/audit.js";
import { verifyPassword } from "../auth/password.js";
import { hashToken, startSession } from "../auth/session.js";
import type { LoginThrottle } from "../auth/throttle.js";
import { createMember, newAccountProblem } from "../auth/users.js";
import { readJson, type ServerDeps } from "../context.js";
import { ApiError } from "../errors.js";
import { clientAddress } from "./auth.js";

const AcceptBody = z.object({ email: z.string().min(1).max(320), password: z.string().max(1024) });

// A used, expired or unknown link answer alike: a token cannot be probed for which it was.
const gone = () =>
  new ApiError(404, "invite.not_found", "this link is unknown, already used or expired; ask for a new one");

/** The link if it can still be used; a setup link only while the database has no account. */
async function usable(deps: ServerDeps, token: string): Promise<InviteRecord> {
  const inv = await deps.stores.invites.get(hashToken(token));
  if (!inv || inv.usedAt !== undefined || inv.expiresAt <= Date.now()) throw gone();
  if (inv.purpose === "setup" && (await deps.stores.teams.countUsers()) > 0) throw gone();
  return inv;
}

/** The account accepting: a new one, or an existing one proven by its password (throttled as sign-ins are). */
async function acceptingUser(deps: ServerDeps, c: Context, inv: InviteRecord, throttle: LoginThrottle) {
  const parsed = AcceptBody.safeParse(await readJson(c));
  if (!parsed.success)
    throw new ApiError(
      400,
      "invite.invalid_request",
      'send JSON {"email": "…", "password": "…"} (a new account, or your existing one)',
    );
  const { teams } = deps.stores;
  const existing = await teams.getUserByEmail(parsed.data.email);
  if (!existing) {
    const problem = newAccountProblem(parsed.data.email, parsed.data.password);
    if (problem) throw new ApiError(400, problem.code, problem.message, undefined, { field: problem.field });
    return { newAccount: parsed.data };
  }
  const account = normalizeEmail(parsed.data.email);
  const from = clientAddress(c);
  if (!throttle.check(account, from).allowed)
    throw new ApiError(429, "auth.throttled", "too many failed sign-ins; wait before trying again");
  if (!(await verifyPassword(parsed.data.password, existing.passwordHash))) {
    throttle.fail(account, from);
    throw new ApiError(401, "auth.invalid_credentials", "the email or the password is wrong");
  }
  throttle.succeed(account, from);
  if (await teams.getMembership(inv.workspaceId, existing.id))
    throw new ApiError(409, "invite.already_member", `${existing.email} is already a member of this workspace`);
  return { existing };
}

async function newMember(deps: ServerDeps, a: { email: string; password: string }, inv: InviteRecord) {
  try {
    return (await createMember(deps.stores, { ...a, role: inv.role, workspaceId: inv.workspaceId })).user;
  } catch (e) {
    if (e instanceof TeamStoreError)
      throw new ApiError(e.code === "user.exists" ? 409 : 400, e.code, e.message, undefined, e.details);
    throw e;
  }
}

/**
 * Links (`?link=TOKEN` in the studio): GET says what the link is for; POST …/accept uses it once — an invitation
 * or the setup link makes the email a member with the link's role (a new account, or an existing one with its
 * password), a sign-in link signs its user in — and starts a session.
 */
export function inviteRoutes(deps: ServerDeps, throttle: LoginThrottle): Hono {
  const r = new Hono();
  const { teams, invites } = deps.stores;

  r.get("/:token", async (c) => {
    const inv = await usable(deps, c.req.param("token"));
    const ws = await teams.getWorkspace(inv.workspaceId);
    return c.json({
      purpose: inv.purpose,
      workspace: ws && { id: ws.id, name: ws.name },
      role: inv.role,
      expiresAt: inv.expiresAt,
    });
  });

  r.post("/:token/accept", async (c) => {
    const token = c.req.param("token");
    const inv = await usable(deps, token);
    let user: UserRecord | undefined;
    if (inv.purpose === "signin") {
      user = inv.createdBy === undefined ? undefined : await teams.getUser(inv.createdBy);
      if (!user || !(await invites.use(inv.tokenHash, user.id))) throw gone();
    } else {
      const who = await acceptingUser(deps, c, inv, throttle);
      // Used once the request is known good, before anything is stored: of two accepts of one link, one wins.
      const email = who.existing?.email ?? normalizeEmail(who.newAccount!.email);
      if (!(await invites.use(inv.tokenHash, email))) throw gone();
      user = who.existing ?? (await newMember(deps, who.newAccount!, inv));
      if (who.existing) await teams.setMembership(inv.workspaceId, user.id, inv.role);
    }
    const s = await startSession(c, teams, user.id, inv.workspaceId);
    await recordAudit(deps, {
      workspaceId: inv.workspaceId,
      actorKind: "link",
      actorId: user.id,
      actorLabel: user.email,
      action: inv.purpose === "signin" ? "link sign-in" : `${inv.purpose} accepted`,
      target: `user:${user.id}`,
      detail: { role: inv.role, link: inv.id, ...(inv.createdBy ? { invitedBy: inv.createdBy } : {}) },
    });
    return c.json({
      user: { id: user.id, email: user.email },
      workspace: await teams.getWorkspace(inv.workspaceId),
      role: (await teams.getMembership(inv.workspaceId, user.id))?.role ?? inv.role,
      csrfToken: s.csrfToken,
    });
  });
  return r;
}
