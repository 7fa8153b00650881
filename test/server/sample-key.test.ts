import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { sampleKey, sampleKeyPath } from "../../src/server/sample.js";
import { openStores } from "../../src/store/open.js";

const dir = mkdtempSync(join(tmpdir(), "weft-sample-key-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the sample's API key", () => {
  it("is kept beside the database file, whichever way the database is named; in-memory databases keep none", () => {
    expect(sampleKeyPath("weft.db")).toBe("weft.db.sample-key");
    expect(sampleKeyPath("sqlite:/tmp/x.db")).toBe("/tmp/x.db.sample-key");
    expect(sampleKeyPath(":memory:")).toBeUndefined();
    // No file beside a PostgreSQL database: one per server, database and schema under .weft/, no password in it.
    const pg = sampleKeyPath("postgres://u:secret@db:5432/weft");
    expect(pg).toMatch(/^\.weft\/postgres-[0-9a-f]{16}\.sample-key$/);
    expect(sampleKeyPath("postgres://u:other@db:5432/weft")).toBe(pg);
    expect(sampleKeyPath("postgres://u@db:5432/weft?schema=staging")).not.toBe(pg);
    expect(sampleKeyPath("postgres://u@db:5432/other")).not.toBe(pg);
  });

  it("is reused while the database accepts it, and replaced once it is revoked", async () => {
    const db = `sqlite:${join(dir, "w.db")}`;
    const stores = await openStores(db);
    try {
      const first = await sampleKey(stores.apps, db);
      expect(first.reused).toBe(false);
      expect(readFileSync(join(dir, "w.db.sample-key"), "utf8").trim()).toBe(first.key);
      expect(await sampleKey(stores.apps, db)).toEqual({ key: first.key, reused: true });
      const [listed] = await stores.apps.listKeys();
      await stores.apps.revokeKey(listed!.id);
      const third = await sampleKey(stores.apps, db);
      expect(third.reused).toBe(false);
      expect(third.key).not.toBe(first.key);
      expect(await stores.apps.verifyKey(third.key)).toBe(true);
    } finally {
      await stores.close();
    }
  });
});
