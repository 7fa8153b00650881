import { statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { tempDir } from "../support/per-file.js";
import { weftOut } from "../support/weft-bin.js";
import { type SampleServer, serveSample } from "./helpers.js";

const dir = tempDir("cli-server");
const db = join(dir, "weft.db");
const weft = (...args: string[]) => weftOut(args, { cwd: dir });
let running: SampleServer | undefined;

afterAll(async () => {
  await running?.stop();
});

describe("weft keys and weft serve", () => {
  it("creates, lists and revokes keys; only hashes are stored", { timeout: 180_000 }, () => {
    const created = JSON.parse(weft("keys", "create", "--db", db, "--name", "ci", "--json")) as {
      id: string;
      key: string;
    };
    expect(created.key).toMatch(/^weft_/);
    const list = JSON.parse(weft("keys", "list", "--db", db, "--json")) as Array<{ id: string; name: string }>;
    expect(list.map((k) => [k.id, k.name])).toEqual([[created.id, "ci"]]);
    expect(JSON.stringify(list)).not.toContain(created.key);
    expect(weft("keys", "revoke", created.id, "--db", db)).toContain("revoked");
    expect(JSON.parse(weft("keys", "list", "--db", db, "--json"))).toEqual([]);
  });

  it("serves the sample app with the key it prints, the same key after a restart", async () => {
    const first = await serveSample(db, dir);
    running = first;
    expect((await fetch(`${first.url}/health`)).status).toBe(200);
    expect((await fetch(`${first.url}/api/apps`)).status).toBe(401);
    const apps = (await (
      await fetch(`${first.url}/api/apps`, { headers: { authorization: `Bearer ${first.key}` } })
    ).json()) as { apps: Array<{ name: string }> };
    expect(apps.apps.map((a) => a.name)).toEqual(["Word statistics"]);
    await first.stop();
    // Only the owner may read the saved key.
    expect(statSync(`${db}.sample-key`).mode & 0o777).toBe(0o600);

    const second = await serveSample(db, dir);
    running = second;
    expect(second.key).toBe(first.key);
    expect(second.out).toContain("the same key as before");
    const again = await fetch(`${second.url}/api/apps`, { headers: { authorization: `Bearer ${first.key}` } });
    expect(again.status).toBe(200);
    expect(((await again.json()) as { apps: unknown[] }).apps).toHaveLength(1);
    await second.stop();
  }, 180_000);
});
