// The audit log, invitations / setup links and API keys carrying a workspace and a role: part of the store
// contract, run on memory, SQLite and PostgreSQL from contract.test.ts.
import { expect, it } from "vitest";
import { type StoreTarget, withStores } from "./store-target.js";

export function describeAuditAndInvites(target: StoreTarget): void {
  it("audit: entries are kept with actor, action, target and detail; listed newest first, by workspace and time; pruned by age", () =>
    withStores(target, async ({ audit }) => {
      expect(await audit.list({})).toEqual([]);
      const base = { actorKind: "session" as const, actorId: "u1", actorLabel: "ann@example.com" };
      const a = await audit.record({ ...base, workspaceId: "default", action: "POST /api/apps", at: 1_000 });
      const b = await audit.record({
        ...base,
        workspaceId: "default",
        action: "POST /api/apps/:id/publish",
        target: "app:x",
        detail: { override: { reason: "hotfix", failing: ["c1"] } },
        at: 2_000,
      });
      const c = await audit.record({
        ...base,
        actorKind: "key",
        actorId: "k1",
        actorLabel: "key ci",
        workspaceId: "w2",
        action: "POST /api/apps/:id/runs",
        at: 2_000,
      });
      expect(a.id).not.toBe(b.id);
      expect(b).toMatchObject({
        at: 2_000,
        target: "app:x",
        detail: { override: { reason: "hotfix", failing: ["c1"] } },
      });
      expect(a.target).toBeUndefined();
      expect(a.detail).toBeUndefined();
      expect((await audit.list({})).map((e) => e.id)).toEqual([c.id, b.id, a.id]);
      expect((await audit.list({ workspaceId: "default" })).map((e) => e.id)).toEqual([b.id, a.id]);
      expect((await audit.list({ since: 1_500 })).map((e) => e.id)).toEqual([c.id, b.id]);
      expect((await audit.list({ limit: 1 })).map((e) => e.id)).toEqual([c.id]);
      expect(await audit.prune(2_000)).toBe(1);
      expect((await audit.list({})).map((e) => e.id)).toEqual([c.id, b.id]);
    }));

  it("keys: a key carries its workspace and role (keys made without one: default workspace, owner)", () =>
    withStores(target, async ({ apps }) => {
      const old = await apps.createKey("before-teams");
      const viewer = await apps.createKey("ro", { workspaceId: "w2", role: "viewer" });
      expect(await apps.findKey(old.key)).toMatchObject({
        id: old.id,
        name: "before-teams",
        workspaceId: "default",
        role: "owner",
      });
      expect(await apps.findKey(viewer.key)).toMatchObject({
        id: viewer.id,
        name: "ro",
        workspaceId: "w2",
        role: "viewer",
      });
      expect(await apps.findKey(`${viewer.key}x`)).toBeUndefined();
      expect((await apps.listKeys()).map((k) => [k.name, k.workspaceId, k.role])).toEqual([
        ["before-teams", "default", "owner"],
        ["ro", "w2", "viewer"],
      ]);
      await apps.revokeKey(viewer.id);
      expect(await apps.findKey(viewer.key)).toBeUndefined();
    }));

  it("invites: used once (one winner of concurrent accepts), not after expiry; pending lists unused invitations only; revoked", () =>
    withStores(target, async ({ invites }) => {
      const inv = (id: string, over: object = {}) => ({
        id,
        tokenHash: `h-${id}`,
        purpose: "invite" as const,
        workspaceId: "default",
        role: "editor" as const,
        createdBy: "u1",
        createdAt: 1_000,
        expiresAt: 10_000,
        ...over,
      });
      await invites.create(inv("a"));
      await invites.create(inv("b", { createdAt: 2_000 }));
      await invites.create(inv("s", { purpose: "setup", role: "owner", createdBy: undefined }));
      await invites.create(inv("old", { expiresAt: 1_500 }));
      expect(await invites.get("h-s")).toEqual(inv("s", { purpose: "setup", role: "owner", createdBy: undefined }));
      expect((await invites.get("h-s"))!.createdBy).toBeUndefined();
      expect((await invites.pending("default", 3_000)).map((i) => i.id)).toEqual(["b", "a"]);
      const tries = await Promise.all([invites.use("h-a", "u2", 3_000), invites.use("h-a", "u3", 3_000)]);
      expect(tries.filter(Boolean)).toHaveLength(1);
      expect(await invites.get("h-a")).toMatchObject({ usedAt: 3_000 });
      expect(await invites.use("h-old", "u2", 3_000)).toBe(false);
      expect(await invites.use("h-nothing", "u2", 3_000)).toBe(false);
      expect((await invites.pending("default", 3_000)).map((i) => i.id)).toEqual(["b"]);
      expect(await invites.revoke("other", "b")).toBe(false);
      expect(await invites.revoke("default", "b")).toBe(true);
      expect(await invites.revoke("default", "a")).toBe(false); // used: kept as a record
      expect(await invites.pending("default", 3_000)).toEqual([]);
    }));
}
