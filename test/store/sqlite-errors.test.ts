/**
 * SQLite failures name the database file and carry a typed code (issue 16, item 6): a file that is not
 * a database, a database with corrupt pages, a read-only file, a full disk. Before, each surfaced as
 * better-sqlite3's bare message ("file is not a database") with no file name and no Weft code.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, closeSync, mkdtempSync, openSync, rmSync, statSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { runWorkflow } from "../../src/engine/run.js";
import { StoreError } from "../../src/store/errors.js";
import { openStores, type Stores } from "../../src/store/open.js";
import { buildWorkflow } from "../support/build.js";

const ROOT = resolve(import.meta.dirname, "../..");
const dir = mkdtempSync(join(tmpdir(), "weft-sqlite-errors-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function caught(f: () => Promise<unknown>): Promise<StoreError> {
  try {
    await f();
  } catch (e) {
    expect(e).toBeInstanceOf(StoreError);
    return e as StoreError;
  }
  throw new Error("expected a StoreError");
}

const sqlite = (s: Stores) => (s.runs as unknown as { db: Database.Database }).db;

const run = (id: string, size = 10) => ({
  id,
  workflow: { payload: "x".repeat(size) } as never,
  inputs: {},
  status: "running" as const,
  createdAt: 1,
  updatedAt: 1,
});

describe("SQLite errors name the file", () => {
  it("a file that is not a database", async () => {
    const path = join(dir, "notes.db");
    writeFileSync(path, "these are my notes, not a database\n".repeat(200));
    const e = await caught(() => openStores(path));
    expect(e.code).toBe("store.corrupt");
    expect(e.message).toContain(path);
    expect(e.message).toMatch(/not a SQLite database/);
  });

  it("a database whose pages were overwritten", async () => {
    const path = join(dir, "damaged.db");
    const s = await openStores(path);
    for (let i = 0; i < 200; i++) await s.runs.createRun(run(`r${i}`, 2000));
    sqlite(s).pragma("wal_checkpoint(TRUNCATE)");
    await s.close();
    // Scribble over every page but the header page.
    const size = statSync(path).size;
    const fd = openSync(path, "r+");
    writeSync(fd, Buffer.alloc(size - 4096, 0x5a), 0, size - 4096, 4096);
    closeSync(fd);
    const e = await caught(async () => (await openStores(path)).runs.listRuns({ limit: 500 }));
    expect(e.code).toBe("store.corrupt");
    expect(e.message).toContain(path);
  });

  it("a missing directory", async () => {
    const path = join(dir, "no-such-dir", "weft.db");
    const e = await caught(() => openStores(path));
    expect(e.code).toBe("store.open_failed");
    expect(e.message).toContain(path);
  });

  it("a full database: the write that does not fit fails, and a run on it rejects with store.full", async () => {
    const path = join(dir, "full.db");
    const s = await openStores(path);
    await s.runs.createRun(run("small"));
    // SQLite's own size cap gives the same SQLITE_FULL a full disk does.
    const pages = sqlite(s).pragma("page_count", { simple: true }) as number;
    sqlite(s).pragma(`max_page_count = ${pages}`);
    const e = await caught(() => s.runs.createRun(run("big", 200_000)));
    expect(e.code).toBe("store.full");
    expect(e.message).toContain(path);
    const wf = buildWorkflow({
      nodes: [
        { id: "start", type: "start", variables: [] },
        { id: "end", type: "end", outputs: [] },
      ],
      edges: [["start", "end"]],
    });
    await expect(runWorkflow({ ...wf, name: "y".repeat(200_000) }, { store: s.runs })).rejects.toMatchObject({
      code: "store.full",
      message: expect.stringContaining(path),
    });
    await s.close();
  });

  it("a read-only database, through the CLI as a user who may not write it", { timeout: 120_000 }, async () => {
    const ro = mkdtempSync(join(dir, "ro-"));
    const path = join(ro, "weft.db");
    await (await openStores(path)).close();
    const asRoot = process.getuid?.() === 0;
    if (!asRoot) {
      chmodSync(path, 0o444);
      chmodSync(ro, 0o555);
    } else {
      chmodSync(dir, 0o755);
      chmodSync(ro, 0o755);
    }
    const r = spawnSync(
      join(ROOT, "bin/weft"),
      ["run", join(ROOT, "examples/word-stats.yml"), "--db", path, "--input", "text=hi"],
      {
        encoding: "utf8",
        cwd: tmpdir(),
        env: { PATH: process.env.PATH, HOME: tmpdir() },
        ...(asRoot ? { uid: 65534, gid: 65534 } : {}),
        timeout: 100_000,
      },
    );
    chmodSync(ro, 0o755);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(/^error store\.read_only: /);
    expect(r.stderr).toContain(path);
    // A database that cannot be opened for writing is a configuration problem: exit 2.
    expect(r.status).toBe(2);
  });
});
