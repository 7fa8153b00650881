/**
 * SQLite failures name the database file and carry a typed code (issue 16, item 6): a file that is not
 * a database, a database with corrupt pages, a read-only file, a full disk. Before, each surfaced as
 * better-sqlite3's bare message ("file is not a database") with no file name and no Weft code.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, closeSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runWorkflow } from "../../src/engine/run.js";
import { SqliteRunStore } from "../../src/store/sqlite.js";
import { StoreError } from "../../src/store/sqlite-errors.js";
import { buildWorkflow } from "../support/build.js";

const ROOT = resolve(import.meta.dirname, "../..");
const dir = mkdtempSync(join(tmpdir(), "weft-sqlite-errors-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function caught(f: () => unknown): StoreError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(StoreError);
    return e as StoreError;
  }
  throw new Error("expected a StoreError");
}

const run = (id: string, size = 10) => ({
  id,
  workflow: { payload: "x".repeat(size) } as never,
  inputs: {},
  status: "running" as const,
  createdAt: 1,
  updatedAt: 1,
});

describe("SQLite errors name the file", () => {
  it("a file that is not a database", () => {
    const path = join(dir, "notes.db");
    writeFileSync(path, "these are my notes, not a database\n".repeat(200));
    const e = caught(() => new SqliteRunStore(path));
    expect(e.code).toBe("store.corrupt");
    expect(e.message).toContain(path);
    expect(e.message).toMatch(/not a SQLite database/);
  });

  it("a database whose pages were overwritten", () => {
    const path = join(dir, "damaged.db");
    const s = new SqliteRunStore(path);
    for (let i = 0; i < 200; i++) s.createRun(run(`r${i}`, 2000));
    s.db.pragma("wal_checkpoint(TRUNCATE)");
    s.close();
    const fd = openSync(path, "r+");
    writeSync(fd, Buffer.alloc(4096 * 20, 0x5a), 0, 4096 * 20, 4096 * 2);
    closeSync(fd);
    const e = caught(() => new SqliteRunStore(path).listRuns(500));
    expect(e.code).toBe("store.corrupt");
    expect(e.message).toContain(path);
  });

  it("a missing directory", () => {
    const path = join(dir, "no-such-dir", "weft.db");
    const e = caught(() => new SqliteRunStore(path));
    expect(e.code).toBe("store.cannot_open");
    expect(e.message).toContain(path);
  });

  it("a full database: the write that does not fit fails, and a run on it rejects with store.full", async () => {
    const path = join(dir, "full.db");
    const s = new SqliteRunStore(path);
    s.createRun(run("small"));
    // SQLite's own size cap gives the same SQLITE_FULL a full disk does.
    const pages = s.db.pragma("page_count", { simple: true }) as number;
    s.db.pragma(`max_page_count = ${pages}`);
    const e = caught(() => s.createRun(run("big", 200_000)));
    expect(e.code).toBe("store.full");
    expect(e.message).toContain(path);
    const wf = buildWorkflow({
      nodes: [
        { id: "start", type: "start", variables: [] },
        { id: "end", type: "end", outputs: [] },
      ],
      edges: [["start", "end"]],
    });
    await expect(runWorkflow({ ...wf, name: "y".repeat(200_000) }, { store: s })).rejects.toMatchObject({
      code: "store.full",
      message: expect.stringContaining(path),
    });
    s.close();
  });

  it("a read-only database, through the CLI as a user who may not write it", { timeout: 120_000 }, () => {
    const ro = mkdtempSync(join(dir, "ro-"));
    const path = join(ro, "weft.db");
    new SqliteRunStore(path).close();
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
    expect(r.status).toBe(1);
  });
});
