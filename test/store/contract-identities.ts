// Identities (OIDC issuer + subject → account), part of the store contract: every backend (memory, SQLite,
// PostgreSQL) runs it from contract.test.ts through describeStoreContract.
import { expect, it } from "vitest";
import { type StoreTarget, withStores } from "./store-target.js";

export function describeIdentities(target: StoreTarget): void {
  it("identities: found by issuer and subject; the first link wins; listed per account", () =>
    withStores(target, async ({ teams, identities }) => {
      const ann = await teams.createUser({ email: "ann@example.com", passwordHash: "sso" });
      const bob = await teams.createUser({ email: "bob@example.com", passwordHash: "sso" });
      expect(await identities.get("https://idp.example", "s1")).toBeUndefined();
      const linked = await identities.link({
        issuer: "https://idp.example",
        subject: "s1",
        userId: ann.id,
        email: "ann@example.com",
      });
      expect(linked).toMatchObject({
        issuer: "https://idp.example",
        subject: "s1",
        userId: ann.id,
        email: "ann@example.com",
      });
      expect(typeof linked.createdAt).toBe("number");
      // A second link of the same pair (a racing callback) returns the first, not bob.
      const again = await identities.link({
        issuer: "https://idp.example",
        subject: "s1",
        userId: bob.id,
        email: "bob@example.com",
      });
      expect(again.userId).toBe(ann.id);
      // The same subject at another issuer is another person.
      await identities.link({
        issuer: "https://other.example",
        subject: "s1",
        userId: bob.id,
        email: "bob@example.com",
      });
      expect((await identities.get("https://other.example", "s1"))?.userId).toBe(bob.id);
      expect((await identities.get("https://idp.example", "s1"))?.userId).toBe(ann.id);
      expect((await identities.ofUser(ann.id)).map((i) => i.issuer)).toEqual(["https://idp.example"]);
      expect(await identities.ofUser("nobody")).toEqual([]);
    }));

  if (target.openAgain) {
    const again = target.openAgain.bind(target);
    it("identities: a link made by one process is found by another on the same database", async () => {
      const a = await target.open();
      const b = await again();
      try {
        const u = await a.teams.createUser({ email: "cy@example.com", passwordHash: "sso" });
        await a.identities.link({
          issuer: "https://idp.example",
          subject: "cy",
          userId: u.id,
          email: "cy@example.com",
        });
        expect((await b.identities.get("https://idp.example", "cy"))?.userId).toBe(u.id);
      } finally {
        await b.close();
        await a.close();
      }
    });
  }
}
