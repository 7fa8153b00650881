// The SQLite connection keeps the statements its stores prepare: the same SQL is parsed once, a kept statement
// comes back with its result shape reset, one under way is never handed out twice, and failures stay typed.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { StoreError } from "../../src/store/errors.js";
import { openSqlite } from "../../src/store/sqlite/database.js";

const dir = mkdtempSync(join(tmpdir(), "weft-sqlite-statements-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("SQLite prepared statements", () => {
  it("the same SQL gives the same statement, reset to plain rows", () => {
    const db = openSqlite(join(dir, "cache.db"));
    db.exec("CREATE TABLE t (v TEXT); INSERT INTO t VALUES ('a'), ('b')");
    const sql = "SELECT v FROM t ORDER BY v";
    const first = db.prepare(sql);
    expect(first.pluck().all()).toEqual(["a", "b"]);
    const again = db.prepare(sql);
    expect(again).toBe(first);
    // A caller that plucked it does not change what the next caller gets.
    expect(again.all()).toEqual([{ v: "a" }, { v: "b" }]);
    expect(db.prepare(sql).raw().get()).toEqual(["a"]);
    expect(db.prepare(sql).get()).toEqual({ v: "a" });
    db.close();
  });

  it("a statement whose query is under way is not handed out again", () => {
    const db = openSqlite(join(dir, "busy.db"));
    db.exec("CREATE TABLE t (v INTEGER); INSERT INTO t VALUES (1), (2), (3)");
    const sql = "SELECT v FROM t ORDER BY v";
    const seen: Array<[number, number]> = [];
    for (const row of db.prepare(sql).iterate() as Iterable<{ v: number }>) {
      // The outer statement is iterating: this one must be another (better-sqlite3 refuses a busy one).
      const inner = db.prepare(sql).all() as Array<{ v: number }>;
      seen.push([row.v, inner.length]);
    }
    expect(seen).toEqual([
      [1, 3],
      [2, 3],
      [3, 3],
    ]);
    db.close();
  });

  it("kept statements still fail with the store's typed errors", () => {
    const db = openSqlite(join(dir, "typed.db"));
    db.exec("CREATE TABLE t (v TEXT PRIMARY KEY)");
    const insert = "INSERT INTO t VALUES (?)";
    db.prepare(insert).run("x");
    expect(() => db.prepare(insert).run("x")).toThrow(StoreError);
    expect(() => db.prepare("SELECT nope FROM t")).toThrow(StoreError);
    db.close();
  });
});
