// Group commit on SQLite: concurrent commits share one durable sync, a failing write fails alone, and a
// process killed between a group's write and its sync loses no acknowledged node and re-runs none.
import { existsSync, fdatasync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { resumeRun, runWorkflow } from "../../src/engine/run.js";
import { openSqlite } from "../../src/store/sqlite/database.js";
import { GroupCommit } from "../../src/store/sqlite/group-commit.js";
import { SqliteRunStore } from "../../src/store/sqlite/runs.js";
import { GROUP_NODES, groupCommitWorkflow, withLoggedNode } from "../support/group-commit-workflow.js";
import { killWhenHolding } from "../support/held-child.js";

const dir = mkdtempSync(join(tmpdir(), "weft-group-commit-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const log = join(dir, "exec.log");
const nodeTypes = withLoggedNode(log);
const lines = (path: string) => (existsSync(path) ? readFileSync(path, "utf8").trim().split("\n").filter(Boolean) : []);

describe("SQLite group commit", () => {
  it("commits of concurrent runs share durable syncs, and every run is complete", async () => {
    const db = openSqlite(join(dir, "shared.db"));
    const group = new GroupCommit(db);
    const store = new SqliteRunStore(db, group);
    const runs = await Promise.all(
      Array.from({ length: 16 }, (_, i) => runWorkflow(groupCommitWorkflow(), { store, runId: `r${i}`, nodeTypes })),
    );
    for (const r of runs) expect(r.outputs).toEqual({ v1: 11, v2: 22, v3: 33, v4: 44 });
    let commits = 0;
    for (let i = 0; i < 16; i++) commits += (await store.committed(`r${i}`)).size;
    // start, 8 steps and end per run.
    expect(commits).toBe(16 * 10);
    // Each run alone would sync at least once per commit; together they share.
    expect(group.syncs).toBeGreaterThan(0);
    expect(group.syncs).toBeLessThan(commits / 2);
    await group.close();
    db.close();
  });

  it("a lone write starts its sync at once, without waiting for a turn of the event loop", async () => {
    const db = openSqlite(join(dir, "lone.db"));
    db.exec("CREATE TABLE t (v TEXT)");
    await new GroupCommit(db).write(() => db.prepare("INSERT INTO t (v) VALUES ('wal')").run());
    const order: string[] = [];
    const group = new GroupCommit(db, {
      sync: (fd) => {
        order.push("sync");
        return new Promise((res, rej) => fdatasync(fd, (e) => (e ? rej(e) : res())));
      },
    });
    // A turn of the loop already asked for: before, the group waited behind it (and behind all other I/O).
    setImmediate(() => order.push("turn"));
    const written = group.write(() => db.prepare("INSERT INTO t (v) VALUES ('a')").run());
    const joined = group.write(() => db.prepare("INSERT INTO t (v) VALUES ('b')").run());
    await Promise.all([written, joined]);
    expect(order[0]).toBe("sync");
    // Writes made in the same stretch of code still share the group's sync.
    expect(group.syncs).toBe(1);
    await group.close();
    db.close();
  });

  it("writes that arrive during a sync are all covered by the one sync after it", async () => {
    const db = openSqlite(join(dir, "during.db"));
    db.exec("CREATE TABLE t (v TEXT)");
    await new GroupCommit(db).write(() => db.prepare("INSERT INTO t (v) VALUES ('wal')").run());
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let calls = 0;
    const group = new GroupCommit(db, {
      sync: (fd) => {
        calls++;
        const synced = new Promise<void>((res, rej) => fdatasync(fd, (e) => (e ? rej(e) : res())));
        return calls === 1 ? held.then(() => synced) : synced;
      },
    });
    const first = group.write(() => db.prepare("INSERT INTO t (v) VALUES ('first')").run());
    // Written in later turns of the loop while the first sync is held.
    const later: Promise<unknown>[] = [];
    for (let i = 0; i < 5; i++) {
      await new Promise((r) => setImmediate(r));
      later.push(group.write(() => db.prepare("INSERT INTO t (v) VALUES (?)").run(`w${i}`)));
    }
    // One more turn: the last write's group is written too, all while the first sync is held.
    await new Promise((r) => setImmediate(r));
    release();
    await Promise.all([first, ...later]);
    expect(group.syncs).toBe(2);
    expect(db.prepare("SELECT COUNT(*) AS n FROM t").get()).toEqual({ n: 7 });
    await group.close();
    db.close();
  });

  it("a writer that joins during a sync shares the next sync with the writers that sync released", async () => {
    // A queue worker's runs: a pack of runs commit in step; a new job's run makes its first write while the
    // pack's sync is under way (one Redis round trip after the last job ended). Before, the late group was
    // synced alone the moment the pack's sync ended, the pack's next writes waited for the sync after it, and
    // from then on the two kept separate phases: a sync per step of each.
    const db = openSqlite(join(dir, "late.db"));
    db.exec("CREATE TABLE t (v TEXT)");
    await new GroupCommit(db).write(() => db.prepare("INSERT INTO t (v) VALUES ('wal')").run());
    let syncing = 0;
    let release!: () => void;
    const held = () => new Promise<void>((r) => (release = r));
    let syncsHeld = 0;
    const group = new GroupCommit(db, {
      sync: (fd) => {
        syncing++;
        const synced = new Promise<void>((res, rej) => fdatasync(fd, (e) => (e ? rej(e) : res())));
        // The first sync is held until the late writer's group is written.
        return syncsHeld++ === 0 ? held().then(() => synced) : synced;
      },
    });
    const STEPS = 10;
    const insert = (v: string) => group.write(() => db.prepare("INSERT INTO t (v) VALUES (?)").run(v));
    const writer = async (name: string) => {
      for (let s = 0; s < STEPS; s++) await insert(`${name}${s}`);
    };
    const pack = Promise.all(["a", "b", "c", "d"].map(writer));
    while (syncing === 0) await new Promise((r) => setImmediate(r));
    const late = writer("late");
    // One turn: the late writer's first group is written while the pack's first sync is held.
    await new Promise((r) => setImmediate(r));
    release();
    await Promise.all([pack, late]);
    expect(db.prepare("SELECT COUNT(*) AS n FROM t").get()).toEqual({ n: 1 + 5 * STEPS });
    // In step from its second write: one sync per step, plus the late writer's first group's own share.
    expect(group.syncs).toBeLessThanOrEqual(STEPS + 1);
    await group.close();
    db.close();
  });

  it("a write that fails in a group fails alone", async () => {
    const db = openSqlite(join(dir, "fail.db"));
    const store = new SqliteRunStore(db, new GroupCommit(db));
    const run = (id: string) => ({
      id,
      workflow: groupCommitWorkflow(),
      inputs: {},
      status: "running" as const,
      createdAt: 1,
      updatedAt: 1,
    });
    await store.createRun(run("x"));
    // One turn of the loop: the same group. The duplicate is refused, the others are written.
    const results = await Promise.allSettled([
      store.createRun(run("y")),
      store.createRun(run("x")),
      store.createRun(run("z")),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect((await store.getRun("y"))?.id).toBe("y");
    expect((await store.getRun("z"))?.id).toBe("z");
    db.close();
  });

  it("a lone write (its own transaction, no savepoint) that fails keeps nothing it wrote", async () => {
    const db = openSqlite(join(dir, "lone-fail.db"));
    db.exec("CREATE TABLE t (v TEXT)");
    const group = new GroupCommit(db);
    const insert = (v: string) => () => db.prepare("INSERT INTO t (v) VALUES (?)").run(v);
    await group.write(insert("a"));
    const failing = () => {
      insert("half")();
      throw new Error("refused after a row");
    };
    await expect(group.write(failing)).rejects.toThrow("refused after a row");
    // As SQLite does on SQLITE_FULL: the transaction already ended when the write throws.
    const ended = () => {
      insert("gone")();
      db.exec("ROLLBACK");
      throw Object.assign(new Error("database or disk is full"), { code: "SQLITE_FULL" });
    };
    await expect(group.write(ended)).rejects.toMatchObject({ code: "SQLITE_FULL" });
    expect(db.inTransaction).toBe(false);
    await group.write(insert("b"));
    expect(db.prepare("SELECT v FROM t").all()).toEqual([{ v: "a" }, { v: "b" }]);
    // Each went alone: the path under test.
    expect(group.syncs).toBe(4);
    await group.close();
    db.close();
  });

  it("a write after which SQLite has ended the transaction itself fails the whole group with its own error", async () => {
    const db = openSqlite(join(dir, "ended.db"));
    db.exec("CREATE TABLE t (v TEXT)");
    const group = new GroupCommit(db);
    const insert = (v: string) => () => db.prepare("INSERT INTO t (v) VALUES (?)").run(v);
    // What SQLite does on SQLITE_FULL or an I/O error in the middle of a transaction: it rolls all of it back.
    const full = () => {
      db.exec("ROLLBACK");
      throw Object.assign(new Error("database or disk is full"), { code: "SQLITE_FULL" });
    };
    const results = await Promise.allSettled([group.write(insert("a")), group.write(full), group.write(insert("c"))]);
    // "a" was rolled back with the rest, and "c" never ran outside a transaction: none is acknowledged.
    expect(results.map((r) => (r.status === "rejected" ? (r.reason as { code?: string }).code : "fulfilled"))).toEqual([
      "SQLITE_FULL",
      "SQLITE_FULL",
      "SQLITE_FULL",
    ]);
    expect(db.prepare("SELECT v FROM t").all()).toEqual([]);
    // The next group writes as usual.
    await group.write(insert("d"));
    expect(db.prepare("SELECT v FROM t").all()).toEqual([{ v: "d" }]);
    await group.close();
    db.close();
  });

  it("checkpoints once per mark's worth of WAL, not after every group once the file has grown", async () => {
    const db = openSqlite(join(dir, "checkpoint.db"));
    db.exec("CREATE TABLE t (v TEXT)");
    const group = new GroupCommit(db, { checkpointBytes: 64 * 1024 });
    const row = "x".repeat(2000);
    // 300 groups of one 2 KB row, each writing two 4 KB pages to the WAL: about 2.4 MB, some 37 marks' worth.
    // Before, every group after the file first reached 64 KB checkpointed (about 290).
    for (let i = 0; i < 300; i++) await group.write(() => db.prepare("INSERT INTO t (v) VALUES (?)").run(row));
    expect(group.checkpoints).toBeGreaterThan(20);
    expect(group.checkpoints).toBeLessThan(60);
    expect(db.prepare("SELECT COUNT(*) AS n FROM t").get()).toEqual({ n: 300 });
    await group.close();
    db.close();
  });

  it("checkpoints run on their own thread, and the WAL starts over under steady concurrent writes", async () => {
    const path = join(dir, "off-loop.db");
    const db = openSqlite(path);
    db.exec("CREATE TABLE t (v TEXT)");
    const onLoop: string[] = [];
    const pragma = db.pragma.bind(db);
    db.pragma = ((source: string, o?: Parameters<typeof db.pragma>[1]) => {
      if (/checkpoint\(/i.test(source)) onLoop.push(source);
      return pragma(source, o);
    }) as typeof db.pragma;
    const mark = 64 * 1024;
    const group = new GroupCommit(db, { checkpointBytes: mark });
    const row = "x".repeat(2000);
    // Eight writers back to back: a group is always waiting, so a checkpoint that let them append meanwhile
    // would never see the whole WAL copied, and the file would only grow.
    let largest = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let i = 0; i < 60; i++) {
          await group.write(() => db.prepare("INSERT INTO t (v) VALUES (?)").run(row));
          largest = Math.max(largest, statSync(`${path}-wal`).size);
        }
      }),
    );
    expect(group.checkpoints).toBeGreaterThan(5);
    expect(onLoop).toEqual([]);
    // ~1 MB written in all; the WAL stays within the mark plus what one group and the checkpoint's wait add.
    expect(largest).toBeLessThan(mark * 3);
    await group.close();
    db.close();
    const again = openSqlite(path);
    expect(again.prepare("SELECT COUNT(*) AS n FROM t").get()).toEqual({ n: 480 });
    again.close();
  });

  it("a kill between a group's write and its sync loses no acknowledged node and re-runs none", async () => {
    const dbPath = join(dir, "killed.db");
    const childLog = join(dir, "killed.log");
    const runId = "run-group-kill";
    const acked = await killWhenHolding("group-commit-child.ts", ["run", dbPath, childLog, runId]);
    expect(acked.length).toBeGreaterThanOrEqual(2);

    const db = openSqlite(dbPath);
    const store = new SqliteRunStore(db);
    const committed = [...(await store.committed(runId)).values()].map((c) => c.nodeId);
    // Nothing acknowledged is lost; the held group's commits were written (so the kill fell inside a group).
    for (const node of acked) expect(committed).toContain(node);
    expect(committed.length).toBeGreaterThan(acked.length);
    const before = lines(childLog);
    const earlier = lines(log).length;

    const resumed = await resumeRun(runId, { store, nodeTypes });
    expect(resumed.status).toBe("succeeded");
    expect(resumed.outputs).toEqual({ v1: 11, v2: 22, v3: 33, v4: 44 });
    // The parent's executions go to this process's log: none of them is a node committed before the kill.
    const again = lines(log).slice(earlier);
    for (const node of committed) expect(again).not.toContain(node);
    // Every step ran, each committed one exactly once.
    expect(new Set([...before, ...again])).toEqual(new Set(GROUP_NODES));
    for (const node of committed.filter((n) => GROUP_NODES.includes(n)))
      expect(before.filter((n) => n === node)).toHaveLength(1);
    db.close();
  }, 60_000);
});
