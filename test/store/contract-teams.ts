// Teams (users, workspaces, memberships, sessions, resource owners), part of the store contract: every
// backend (memory, SQLite, PostgreSQL) runs it from contract.test.ts through describeStoreContract.
import { expect, it } from "vitest";
import type { Stores } from "../../src/store/open.js";
import { DEFAULT_WORKSPACE_ID, type SessionRecord } from "../../src/store/teams.js";
import { type StoreTarget, withStores } from "./store-target.js";

const session = (over: Partial<SessionRecord>): SessionRecord => ({
  tokenHash: "h1",
  userId: "u",
  workspaceId: DEFAULT_WORKSPACE_ID,
  csrfToken: "c1",
  createdAt: 1_000,
  expiresAt: 10_000,
  ...over,
});

export function describeTeams(target: StoreTarget): void {
  it("teams: users are unique by normalised email; the default workspace exists from the start", () =>
    withStores(target, async ({ teams }) => {
      expect(await teams.getWorkspace(DEFAULT_WORKSPACE_ID)).toMatchObject({
        id: DEFAULT_WORKSPACE_ID,
        name: "Default",
      });
      expect(await teams.countUsers()).toBe(0);
      const u = await teams.createUser({ email: "  Ann@Example.COM ", passwordHash: "scrypt$x" });
      expect(u.email).toBe("ann@example.com");
      await expect(teams.createUser({ email: "ann@example.com", passwordHash: "y" })).rejects.toMatchObject({
        code: "user.exists",
      });
      expect(await teams.getUserByEmail("ANN@example.com")).toEqual(u);
      expect(await teams.getUser(u.id)).toEqual(u);
      expect(await teams.getUser("nobody")).toBeUndefined();
      expect(await teams.setPasswordHash(u.id, "scrypt$new")).toBe(true);
      expect((await teams.getUser(u.id))!.passwordHash).toBe("scrypt$new");
      expect(await teams.setPasswordHash("nobody", "z")).toBe(false);
      const b = await teams.createUser({ email: "bob@example.com", passwordHash: "p" });
      expect((await teams.listUsers()).map((x) => x.id)).toEqual([u.id, b.id]);
      expect(await teams.countUsers()).toBe(2);
    }));

  it("teams: memberships carry one role per workspace; unknown users and workspaces are refused", () =>
    withStores(target, async ({ teams }) => {
      const u = await teams.createUser({ email: "a@x.io", passwordHash: "p" });
      const ws = await teams.createWorkspace("Research ✓");
      expect(await teams.getWorkspace(ws.id)).toEqual(ws);
      await teams.setMembership(DEFAULT_WORKSPACE_ID, u.id, "viewer");
      await teams.setMembership(ws.id, u.id, "editor");
      expect((await teams.setMembership(DEFAULT_WORKSPACE_ID, u.id, "admin")).role).toBe("admin");
      expect((await teams.getMembership(DEFAULT_WORKSPACE_ID, u.id))!.role).toBe("admin");
      expect((await teams.membershipsOf(u.id)).map((m) => [m.workspaceId, m.role])).toEqual([
        [DEFAULT_WORKSPACE_ID, "admin"],
        [ws.id, "editor"],
      ]);
      expect((await teams.members(ws.id)).map((m) => m.userId)).toEqual([u.id]);
      await expect(teams.setMembership("nope", u.id, "viewer")).rejects.toMatchObject({ code: "workspace.not_found" });
      await expect(teams.setMembership(ws.id, "nobody", "viewer")).rejects.toMatchObject({ code: "user.not_found" });
      expect(await teams.removeMembership(ws.id, u.id)).toBe(true);
      expect(await teams.removeMembership(ws.id, u.id)).toBe(false);
      expect(await teams.getMembership(ws.id, u.id)).toBeUndefined();
    }));

  it("teams: sessions expire, end one by one or all of a user's at once", () =>
    withStores(target, async ({ teams }) => {
      await teams.createSession(session({ tokenHash: "a", userId: "u1" }));
      await teams.createSession(session({ tokenHash: "b", userId: "u1" }));
      await teams.createSession(session({ tokenHash: "c", userId: "u2" }));
      expect(await teams.getSession("a", 5_000)).toEqual(session({ tokenHash: "a", userId: "u1" }));
      // Expired: gone, and stays gone even for an earlier clock.
      expect(await teams.getSession("a", 10_000)).toBeUndefined();
      expect(await teams.getSession("a", 5_000)).toBeUndefined();
      expect(await teams.deleteSession("c")).toBe(true);
      expect(await teams.deleteSession("c")).toBe(false);
      await teams.createSession(session({ tokenHash: "d", userId: "u1" }));
      expect(await teams.deleteUserSessions("u1")).toBe(2);
      expect(await teams.getSession("b", 5_000)).toBeUndefined();
    }));

  it("teams: a resource's first owner wins; ids without a row are the default workspace's", () =>
    withStores(target, async ({ teams }) => {
      expect(await teams.ownerOf("app", "a1")).toBe(DEFAULT_WORKSPACE_ID);
      await teams.assign("app", "a1", "ws-1");
      await teams.assign("app", "a1", "ws-2");
      await teams.assign("knowledge", "a1", "ws-2");
      expect(await teams.ownerOf("app", "a1")).toBe("ws-1");
      expect(await teams.ownerOf("knowledge", "a1")).toBe("ws-2");
      expect([...(await teams.owners("app"))]).toEqual([["a1", "ws-1"]]);
    }));
}

/** Two connections to one database see the same accounts and sessions (a second server, a CLI command). */
export function describeTeamsSharing(target: StoreTarget & { openAgain(): Promise<Stores> }): void {
  it("teams: a user and a session made on one connection are seen on another", async () => {
    const a = await target.open();
    const b = await target.openAgain();
    try {
      const u = await a.teams.createUser({ email: "shared@x.io", passwordHash: "p" });
      await a.teams.setMembership(DEFAULT_WORKSPACE_ID, u.id, "owner");
      await a.teams.createSession(session({ tokenHash: "s", userId: u.id, expiresAt: Date.now() + 60_000 }));
      expect((await b.teams.getUserByEmail("shared@x.io"))!.id).toBe(u.id);
      expect((await b.teams.getMembership(DEFAULT_WORKSPACE_ID, u.id))!.role).toBe("owner");
      expect((await b.teams.getSession("s"))!.userId).toBe(u.id);
      await expect(b.teams.createUser({ email: "SHARED@x.io", passwordHash: "q" })).rejects.toMatchObject({
        code: "user.exists",
      });
    } finally {
      await b.close();
      await a.close();
    }
  });
}
