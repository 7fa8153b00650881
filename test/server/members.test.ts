// Members management, links (invitations, the first-run setup link, the sample's sign-in link), workspace API
// keys with a role, and the audit log they leave — through the HTTP API of a real server.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setupLinkIfEmpty } from "../../src/server/auth/links.js";
import { sampleSignIn } from "../../src/server/sample.js";
import { login, memberSession, type Session, sessionFrom } from "../support/sessions.js";
import { startTestServer, type TestServer } from "./helpers.js";

let s: TestServer;
let owner: Session;
let admin: Session;

const tokenOf = (url: string) => new URL(url).searchParams.get("link")!;
const post = (path: string, headers: Record<string, string>, body: unknown = {}) =>
  fetch(`${s.url}${path}`, {
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
const put = (path: string, headers: Record<string, string>, body: unknown) =>
  fetch(`${s.url}${path}`, {
    method: "PUT",
    headers: { ...headers, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
const get = (path: string, headers: Record<string, string>) => fetch(`${s.url}${path}`, { headers });
const codeOf = async (r: Response) => ((await r.json()) as { error?: { code?: string } }).error?.code;

beforeAll(async () => {
  s = await startTestServer({ db: ":memory:" });
  owner = await memberSession(s.deps.stores, s.url, "owner@t.test", "owner");
  admin = await memberSession(s.deps.stores, s.url, "admin@t.test", "admin");
}, 60_000);
afterAll(() => s?.stop());

describe("invitations", () => {
  it("invite by link with a role → accept once as a new account (signed in with that role); the audit log names who", async () => {
    const res = await post("/api/members/invites", owner.headers(), { role: "editor" });
    expect(res.status).toBe(201);
    const { url, invite } = (await res.json()) as { url: string; invite: { id: string; role: string } };
    const token = tokenOf(url);
    expect(await (await get(`/api/invites/${token}`, {})).json()).toMatchObject({ purpose: "invite", role: "editor" });
    const accepted = await post(
      `/api/invites/${token}/accept`,
      {},
      { email: "ed@t.test", password: "a long password 1" },
    );
    expect(accepted.status).toBe(200);
    const ed = sessionFrom(accepted);
    expect(await (await get("/api/auth/me", ed.headers())).json()).toMatchObject({
      role: "editor",
      user: { email: "ed@t.test" },
    });
    const again = await post(
      `/api/invites/${token}/accept`,
      {},
      { email: "other@t.test", password: "a long password 1" },
    );
    expect(again.status).toBe(404);
    expect(await codeOf(again)).toBe("invite.not_found");
    expect(await s.deps.stores.teams.getUserByEmail("other@t.test")).toBeUndefined();
    const pending = (await (await get("/api/members/invites", owner.headers())).json()) as {
      invites: { id: string }[];
    };
    expect(pending.invites.map((i) => i.id)).not.toContain(invite.id);

    const audit = (await (await get("/api/audit", owner.headers())).json()) as {
      entries: { action: string; actorLabel: string; detail?: unknown }[];
    };
    expect(audit.entries.map((e) => [e.action, e.actorLabel])).toEqual([
      ["invite accepted", "ed@t.test"],
      ["POST /api/members/invites", "owner@t.test"],
    ]);
    expect(JSON.stringify(audit)).not.toContain(token);
  });

  it("refuses bad input with the field named, and an admin granting the owner role", async () => {
    const bad = await post("/api/members/invites", admin.headers(), { role: "king" });
    expect(bad.status).toBe(400);
    expect(await codeOf(bad)).toBe("member.invalid_role");
    const ownerInvite = await post("/api/members/invites", admin.headers(), { role: "owner" });
    expect(ownerInvite.status).toBe(403);
    expect(await codeOf(ownerInvite)).toBe("member.owner_only");
    const { url } = (await (await post("/api/members/invites", admin.headers(), { role: "viewer" })).json()) as {
      url: string;
    };
    const weak = await post(`/api/invites/${tokenOf(url)}/accept`, {}, { email: "v@t.test", password: "short" });
    expect(weak.status).toBe(400);
    expect(((await weak.json()) as { error: { code: string; message: string } }).error).toMatchObject({
      code: "user.invalid_password",
      message: expect.stringMatching(/^password: /),
    });
    // A refused accept leaves the link usable.
    expect(
      (await post(`/api/invites/${tokenOf(url)}/accept`, {}, { email: "v@t.test", password: "a long password 2" }))
        .status,
    ).toBe(200);
  });
});

describe("members", () => {
  it("role change, the last owner kept, removal ends access, an owner resets a password", async () => {
    const m = await memberSession(s.deps.stores, s.url, "run@t.test", "runner");
    const user = (await s.deps.stores.teams.getUserByEmail("run@t.test"))!;
    expect((await put(`/api/members/${user.id}`, admin.headers(), { role: "editor" })).status).toBe(200);
    expect(await (await get("/api/auth/me", m.headers())).json()).toMatchObject({ role: "editor" });
    const ownerUser = (await s.deps.stores.teams.getUserByEmail("owner@t.test"))!;
    const demote = await put(`/api/members/${ownerUser.id}`, owner.headers(), { role: "admin" });
    expect(demote.status).toBe(409);
    expect(await codeOf(demote)).toBe("member.last_owner");
    expect((await put(`/api/members/${ownerUser.id}`, admin.headers(), { role: "viewer" })).status).toBe(403);
    // Only an owner resets passwords; the member's sessions end and the new password signs in.
    expect(
      (await post(`/api/members/${user.id}/password`, admin.headers(), { password: "a new long password" })).status,
    ).toBe(403);
    const reset = await post(`/api/members/${user.id}/password`, owner.headers(), { password: "a new long password" });
    expect(await reset.json()).toMatchObject({ ok: true, sessionsEnded: 1 });
    expect((await get("/api/auth/me", m.headers())).status).toBe(401);
    const again = await login(s.url, "run@t.test", "a new long password");
    const del = await fetch(`${s.url}/api/members/${user.id}`, { method: "DELETE", headers: admin.headers() });
    expect(del.status).toBe(200);
    expect((await get("/api/auth/me", again.headers())).status).toBe(401);
    const listed = (await (await get("/api/members", owner.headers())).json()) as { members: { email: string }[] };
    expect(listed.members.map((x) => x.email)).not.toContain("run@t.test");
    const actions = (
      (await (await get("/api/audit", owner.headers())).json()) as { entries: { action: string; detail?: unknown }[] }
    ).entries;
    expect(actions.find((e) => e.action === "PUT /api/members/:userId")?.detail).toEqual({
      from: "runner",
      to: "editor",
    });
    expect(actions.map((e) => e.action)).toContain("DELETE /api/members/:userId");
  });

  it("the workspace switcher lists the account's workspaces and moves the session", async () => {
    const other = await s.deps.stores.teams.createWorkspace("Other");
    const me = (await s.deps.stores.teams.getUserByEmail("admin@t.test"))!;
    await s.deps.stores.teams.setMembership(other.id, me.id, "viewer");
    const list = (await (await get("/api/auth/workspaces", admin.headers())).json()) as {
      workspaces: { workspace: { id: string }; role: string; current: boolean }[];
    };
    expect(list.workspaces.map((w) => [w.workspace.id, w.role, w.current])).toEqual([
      ["default", "admin", true],
      [other.id, "viewer", false],
    ]);
    const moved = await post("/api/auth/switch", admin.headers(), { workspaceId: other.id });
    expect(moved.status).toBe(200);
    const there = sessionFrom(moved);
    expect(await (await get("/api/auth/me", there.headers())).json()).toMatchObject({
      role: "viewer",
      workspace: { id: other.id },
    });
    expect((await post("/api/auth/switch", there.headers(), { workspaceId: "nope" })).status).toBe(404);
    admin = there;
    admin = await post("/api/auth/switch", there.headers(), { workspaceId: "default" }).then(sessionFrom);
  });
});

describe("workspace API keys carry a role", () => {
  it("a viewer key reads but cannot import; an admin cannot make an owner key; the audit names the key, never the key itself", async () => {
    const made = await post("/api/keys", owner.headers(), { name: "ro", role: "viewer" });
    expect(made.status).toBe(201);
    const { key, id } = (await made.json()) as { key: string; id: string };
    const bearer = { authorization: `Bearer ${key}` };
    expect((await get("/api/apps", bearer)).status).toBe(200);
    const imp = await post("/api/apps/import", bearer, { yaml: "x" });
    expect(imp.status).toBe(403);
    expect(await codeOf(imp)).toBe("auth.forbidden");
    expect((await post("/api/keys", admin.headers(), { name: "root", role: "owner" })).status).toBe(403);
    // The key made before teams (the test server's) keeps every right.
    const created = await post("/api/apps", { authorization: `Bearer ${s.key}` }, { name: "by old key" });
    expect(created.status).toBe(201);
    const entries = (
      (await (await get("/api/audit?since=1h", owner.headers())).json()) as {
        entries: { action: string; actorKind: string; actorLabel: string }[];
      }
    ).entries;
    expect(entries.find((e) => e.action === "POST /api/apps")).toMatchObject({
      actorKind: "key",
      actorLabel: "key test",
    });
    expect(JSON.stringify(entries)).not.toContain(key);
    expect((await fetch(`${s.url}/api/keys/${id}`, { method: "DELETE", headers: owner.headers() })).status).toBe(200);
    expect((await get("/api/apps", bearer)).status).toBe(401);
  });

  it("GET /api/audit is for owners and admins, and refuses a bad `since`", async () => {
    const ed = await memberSession(s.deps.stores, s.url, "ed2@t.test", "editor");
    expect((await get("/api/audit", ed.headers())).status).toBe(403);
    const bad = await get("/api/audit?since=yesterday", owner.headers());
    expect(bad.status).toBe(400);
    expect(await codeOf(bad)).toBe("audit.invalid_since");
  });
});

describe("first run and the sample", () => {
  it("an empty database gets a single-use setup link that makes the owner; none once an account exists", async () => {
    const fresh = await startTestServer({ db: ":memory:" });
    try {
      const link = (await setupLinkIfEmpty(fresh.deps.stores, fresh.url))!;
      expect(link).toMatch(/\/\?link=/);
      const token = tokenOf(link);
      const res = await fetch(`${fresh.url}/api/invites/${token}/accept`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: "first@t.test", password: "a long password 3" }),
      });
      expect(res.status).toBe(200);
      expect(
        await (await fetch(`${fresh.url}/api/auth/me`, { headers: sessionFrom(res).headers() })).json(),
      ).toMatchObject({ role: "owner" });
      expect((await fetch(`${fresh.url}/api/invites/${token}`)).status).toBe(404);
      expect(await setupLinkIfEmpty(fresh.deps.stores, fresh.url)).toBeUndefined();
    } finally {
      await fresh.stop();
    }
  });

  it("a setup link dies once someone made an account another way, and expires", async () => {
    const fresh = await startTestServer({ db: ":memory:" });
    try {
      const link = (await setupLinkIfEmpty(fresh.deps.stores, fresh.url))!;
      await memberSession(fresh.deps.stores, fresh.url, "cli@t.test", "owner");
      expect((await fetch(`${fresh.url}/api/invites/${tokenOf(link)}`)).status).toBe(404);
      expect(await fresh.deps.stores.invites.use("unknown", "x", Date.now())).toBe(false);
    } finally {
      await fresh.stop();
    }
  });

  it("weft serve --sample's sign-in link signs the browser in as the local owner, once", async () => {
    const fresh = await startTestServer({ db: ":memory:" });
    try {
      const first = await sampleSignIn(fresh.deps.stores, fresh.url);
      expect(first.created).toBe(true);
      const res = await fetch(`${fresh.url}/api/invites/${tokenOf(first.url)}/accept`, { method: "POST" });
      expect(res.status).toBe(200);
      expect(
        await (await fetch(`${fresh.url}/api/auth/me`, { headers: sessionFrom(res).headers() })).json(),
      ).toMatchObject({
        role: "owner",
        user: { email: first.email },
      });
      expect((await fetch(`${fresh.url}/api/invites/${tokenOf(first.url)}/accept`, { method: "POST" })).status).toBe(
        404,
      );
      const second = await sampleSignIn(fresh.deps.stores, fresh.url);
      expect(second.created).toBe(false);
      expect(second.url).not.toBe(first.url);
    } finally {
      await fresh.stop();
    }
  });

  it("two servers starting together on one new database both sign in as the one local owner (no user.exists)", async () => {
    const fresh = await startTestServer({ db: ":memory:" });
    try {
      // The other server's owner appears between this one's look-up and its insert: the race two
      // `weft serve --sample` processes started at once ran into (one of them then hung before "serving on").
      const teams = fresh.deps.stores.teams;
      const lookUp = teams.getUserByEmail.bind(teams);
      let first = true;
      teams.getUserByEmail = async (email: string) => {
        if (!first) return lookUp(email);
        first = false;
        await sampleSignIn(fresh.deps.stores, fresh.url);
        return undefined;
      };
      const late = await sampleSignIn(fresh.deps.stores, fresh.url);
      expect(late.created).toBe(false);
      const res = await fetch(`${fresh.url}/api/invites/${tokenOf(late.url)}/accept`, { method: "POST" });
      expect(
        await (await fetch(`${fresh.url}/api/auth/me`, { headers: sessionFrom(res).headers() })).json(),
      ).toMatchObject({
        role: "owner",
        user: { email: late.email },
      });
    } finally {
      await fresh.stop();
    }
  });
});
