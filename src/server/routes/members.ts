import { type Context, Hono } from "hono";
import { z } from "zod";
import { ROLES, type Role } from "../../store/teams.js";
import { createLink, INVITE_TTL_MS, linkUrl } from "../auth/links.js";
import { hashPassword, passwordProblem } from "../auth/password.js";
import { readJson, type ServerDeps } from "../context.js";
import { ApiError } from "../errors.js";

const RoleBody = z.object({ role: z.enum(ROLES) });
const roleError = () =>
  new ApiError(400, "member.invalid_role", `role must be one of ${ROLES.join(", ")}`, undefined, { field: "role" });

/** Only an owner makes, changes or removes an owner (an admin manages everyone else). */
function mayGrant(c: Context, role: Role, current?: Role): void {
  const me = c.get("principal");
  if (me.role !== "owner" && (role === "owner" || current === "owner"))
    throw new ApiError(403, "member.owner_only", "only an owner may grant, change or remove the owner role");
}

async function lastOwner(deps: ServerDeps, workspaceId: string, userId: string): Promise<boolean> {
  const owners = (await deps.stores.teams.members(workspaceId)).filter((m) => m.role === "owner");
  return owners.length === 1 && owners[0]!.userId === userId;
}

async function memberOr404(deps: ServerDeps, workspaceId: string, userId: string) {
  const m = await deps.stores.teams.getMembership(workspaceId, userId);
  if (!m) throw new ApiError(404, "member.not_found", `no member with user id ${userId} in this workspace`);
  return m;
}

/** The caller's workspace, the one whose members every route here manages. */
const ws = (c: Context) => c.get("principal").workspaceId;

/** Invitations by link with a role: make one, list the pending ones, revoke one. */
function memberInviteRoutes(r: Hono, deps: ServerDeps): void {
  const { invites } = deps.stores;

  r.post("/invites", async (c) => {
    const body = RoleBody.safeParse(await readJson(c));
    if (!body.success) throw roleError();
    mayGrant(c, body.data.role);
    const { token, invite } = await createLink(deps.stores, {
      purpose: "invite",
      workspaceId: ws(c),
      role: body.data.role,
      createdBy: c.get("principal").actorId,
      ttlMs: INVITE_TTL_MS,
    });
    c.set("auditDetail", { role: invite.role, invite: invite.id });
    const { tokenHash: _, ...shown } = invite;
    return c.json({ invite: shown, token, url: linkUrl(new URL(c.req.url).origin, token) }, 201);
  });

  r.get("/invites", async (c) => {
    const list = (await invites.pending(ws(c))).map(({ tokenHash: _, ...i }) => i);
    return c.json({ invites: list });
  });

  r.delete("/invites/:inviteId", async (c) => {
    if (!(await invites.revoke(ws(c), c.req.param("inviteId"))))
      throw new ApiError(404, "invite.not_found", `no pending invitation ${c.req.param("inviteId")} in this workspace`);
    return c.json({ ok: true });
  });
}

/** A member's role changed, the member removed, and an owner's reset of a member's password. */
function membershipRoutes(r: Hono, deps: ServerDeps): void {
  const { teams } = deps.stores;

  r.put("/:userId", async (c) => {
    const body = RoleBody.safeParse(await readJson(c));
    if (!body.success) throw roleError();
    const userId = c.req.param("userId");
    const m = await memberOr404(deps, ws(c), userId);
    mayGrant(c, body.data.role, m.role);
    if (body.data.role !== "owner" && (await lastOwner(deps, ws(c), userId)))
      throw new ApiError(
        409,
        "member.last_owner",
        "the workspace's only owner keeps the role; make another member owner first",
      );
    await teams.setMembership(ws(c), userId, body.data.role);
    c.set("auditDetail", { from: m.role, to: body.data.role });
    return c.json({ userId, role: body.data.role });
  });

  r.delete("/:userId", async (c) => {
    const userId = c.req.param("userId");
    const m = await memberOr404(deps, ws(c), userId);
    mayGrant(c, m.role, m.role);
    if (await lastOwner(deps, ws(c), userId))
      throw new ApiError(
        409,
        "member.last_owner",
        "the workspace's only owner cannot be removed; make another member owner first",
      );
    await teams.removeMembership(ws(c), userId);
    c.set("auditDetail", { role: m.role });
    return c.json({ ok: true });
  });

  r.post("/:userId/password", async (c) => {
    if (c.get("principal").role !== "owner")
      throw new ApiError(403, "member.owner_only", "only an owner may reset a member's password");
    const userId = c.req.param("userId");
    await memberOr404(deps, ws(c), userId);
    const password = (await readJson(c)).password;
    const problem = typeof password === "string" ? passwordProblem(password) : 'send JSON {"password": "…"}';
    if (problem)
      throw new ApiError(400, "user.invalid_password", `password: ${problem}`, undefined, { field: "password" });
    await teams.setPasswordHash(userId, await hashPassword(password as string));
    // A reset password ends every session of the account: whoever held the old one is signed out.
    const ended = await teams.deleteUserSessions(userId);
    return c.json({ ok: true, sessionsEnded: ended });
  });
}

/**
 * Members of the caller's workspace (owners and admins manage them: `members.manage`): list, invite by link
 * with a role, change a role, remove, and an owner resets a member's password (every session of it ends).
 */
export function memberRoutes(deps: ServerDeps): Hono {
  const r = new Hono();
  const { teams } = deps.stores;

  r.get("/", async (c) => {
    const members = await Promise.all(
      (await teams.members(ws(c))).map(async (m) => ({
        userId: m.userId,
        email: (await teams.getUser(m.userId))?.email,
        role: m.role,
        since: m.createdAt,
      })),
    );
    return c.json({ members });
  });

  memberInviteRoutes(r, deps);
  membershipRoutes(r, deps);
  return r;
}
