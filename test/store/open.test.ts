import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { StoreOpenError, StoreSpecError } from "../../src/store/errors.js";
import { openStores, parseStoreSpec } from "../../src/store/open.js";

const dir = mkdtempSync(join(tmpdir(), "weft-open-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("openStores: database specifiers", () => {
  it("reads :memory:, plain paths and sqlite: paths", () => {
    expect(parseStoreSpec(":memory:")).toEqual({ kind: "memory" });
    expect(parseStoreSpec("weft.db")).toEqual({ kind: "sqlite", path: "weft.db" });
    expect(parseStoreSpec("./data/runs.db")).toEqual({ kind: "sqlite", path: "./data/runs.db" });
    expect(parseStoreSpec("/var/lib/weft.db")).toEqual({ kind: "sqlite", path: "/var/lib/weft.db" });
    expect(parseStoreSpec("sqlite:runs.db")).toEqual({ kind: "sqlite", path: "runs.db" });
    expect(parseStoreSpec("sqlite:///tmp/runs.db")).toEqual({ kind: "sqlite", path: "/tmp/runs.db" });
  });

  it("refuses what it cannot open with a typed error, never taking a URL for a file name", () => {
    const code = (spec: string) => {
      try {
        parseStoreSpec(spec);
        return "accepted";
      } catch (e) {
        expect(e).toBeInstanceOf(StoreSpecError);
        return (e as StoreSpecError).code;
      }
    };
    expect(code("postgres://weft@127.0.0.1/weft")).toBe("accepted");
    expect(code("postgresql://weft@127.0.0.1/weft")).toBe("accepted");
    expect(code("postgres://weft@127.0.0.1/weft?schema=Bad-Name")).toBe("store.bad_spec");
    expect(code("postgres://weft@127.0.0.1/weft?pool_max=0")).toBe("store.bad_spec");
    expect(code("mysql://root@db/weft")).toBe("store.unknown_spec");
    expect(code("redis://127.0.0.1:6379")).toBe("store.unknown_spec");
    expect(code("")).toBe("store.empty_spec");
    expect(code("  ")).toBe("store.empty_spec");
    expect(code("sqlite:")).toBe("store.empty_spec");
  });

  it("names the file when SQLite cannot open it", async () => {
    await expect(openStores(join(dir, "missing-dir", "x.db"))).rejects.toMatchObject({
      code: "store.open_failed",
      constructor: StoreOpenError,
    });
    const notDb = join(dir, "not-a-db.txt");
    writeFileSync(
      notDb,
      "this is not a database, it is a text file with enough bytes to look like a header\n".repeat(20),
    );
    // SQLite's own reason keeps its code (issue 16): not a database is store.corrupt.
    await expect(openStores(notDb)).rejects.toMatchObject({
      code: "store.corrupt",
      constructor: StoreOpenError,
      message: expect.stringContaining(notDb),
    });
  });

  it("opens every store on one SQLite file and closes it", async () => {
    const s = await openStores(join(dir, "all.db"));
    expect(s.kind).toBe("sqlite");
    await s.runs.listRuns();
    await s.apps.listApps();
    await s.close();
    await s.close();
    const m = await openStores(":memory:");
    expect(m.kind).toBe("memory");
    await m.close();
  });

  it("the CLI reports a bad --db as a usage error with its code, not a stack trace", () => {
    const bin = resolve(import.meta.dirname, "../../bin/weft");
    const r = spawnSync(bin, ["runs", "--db", "mysql://root@db/weft"], { cwd: dir, encoding: "utf8", timeout: 60_000 });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^error store\.unknown_spec: unknown database specifier "mysql:\/\/root@db\/weft"/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    // An in-process store cannot be shared by workers, nor keep a key for a server.
    const worker = spawnSync(bin, ["worker", "--db", ":memory:", "--redis", "redis://127.0.0.1:1"], {
      cwd: dir,
      encoding: "utf8",
      timeout: 60_000,
    });
    expect([worker.status, worker.stderr]).toEqual([2, expect.stringMatching(/^error store\.not_shared: /)]);
    const key = spawnSync(bin, ["keys", "create", "--db", ":memory:"], { cwd: dir, encoding: "utf8", timeout: 60_000 });
    expect([key.status, key.stderr, key.stdout]).toEqual([2, expect.stringMatching(/^error keys\.not_stored: /), ""]);
  });
});

describe("openStores: databases written by earlier versions", () => {
  it("a conversations table without end users, names or inputs gains them and keeps its rows", async () => {
    const Database = (await import("better-sqlite3")).default;
    const path = join(dir, "old-conversations.db");
    const old = new Database(path);
    // The table as the studio's conversation store first created it.
    old.exec(`CREATE TABLE conversations (
      id TEXT PRIMARY KEY, app_id TEXT NOT NULL, variables TEXT NOT NULL, dialogue_count INTEGER NOT NULL,
      created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL)`);
    old.prepare("INSERT INTO conversations VALUES (?,?,?,?,?,?)").run("c-old", "app-1", '{"n":2}', 2, 1, 2);
    old.close();
    const stores = await openStores(path);
    try {
      expect(await stores.conversations.get("c-old")).toEqual({
        id: "c-old",
        appId: "app-1",
        user: "",
        name: "",
        inputs: {},
        variables: { n: 2 },
        dialogueCount: 2,
        createdAt: 1,
        updatedAt: 2,
      });
      const fresh = await stores.conversations.create("app-1", { user: "u", name: "n", inputs: { a: 1 } });
      expect((await stores.conversations.list("app-1", "u", { limit: 5 }))?.data.map((c) => c.id)).toEqual([fresh.id]);
    } finally {
      await stores.close();
    }
  });
});
