// Batched node commits on PostgreSQL: commits of concurrent runs share statements, one failing commit fails
// alone, version counters and losers behave as with single commits, and a process killed after a batch has
// committed but before the engine heard of it loses no acknowledged node and re-runs none.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resumeRun, runWorkflow } from "../../src/engine/run.js";
import { openStores } from "../../src/store/open.js";
import type { PostgresRunStore } from "../../src/store/postgres/runs.js";
import type { NodeCommit } from "../../src/store/runs.js";
import { buildWorkflow } from "../support/build.js";
import { GROUP_NODES, groupCommitWorkflow, withLoggedNode } from "../support/group-commit-workflow.js";
import { killWhenHolding } from "../support/held-child.js";
import { hasPostgres, type PgCluster, startPostgres } from "../support/postgres.js";

const dir = mkdtempSync(join(tmpdir(), "weft-pg-batch-"));
const log = join(dir, "exec.log");
const nodeTypes = withLoggedNode(log);
const lines = (path: string) => (existsSync(path) ? readFileSync(path, "utf8").trim().split("\n").filter(Boolean) : []);
const wf = buildWorkflow({ nodes: [{ id: "start", type: "start", variables: [] }], edges: [] });
const run = (id: string) => ({ id, workflow: wf, inputs: {}, status: "running" as const, createdAt: 1, updatedAt: 1 });
const commit = (key: string, nodeId: string, v: unknown): NodeCommit => ({
  key,
  nodeId,
  status: "succeeded",
  outputs: { v },
});

describe.skipIf(!hasPostgres && !process.env.CI)("PostgreSQL batched commits", () => {
  let cluster: PgCluster;
  beforeAll(async () => {
    cluster = await startPostgres();
  }, 120_000);
  afterAll(async () => {
    await cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("commits of concurrent runs share statements, and every run is complete", async () => {
    const s = await openStores(await cluster.createDatabase());
    try {
      const runs = await Promise.all(
        Array.from({ length: 16 }, (_, i) =>
          runWorkflow(groupCommitWorkflow(), { store: s.runs, runId: `r${i}`, nodeTypes }),
        ),
      );
      for (const r of runs) expect(r.outputs).toEqual({ v1: 11, v2: 22, v3: 33, v4: 44 });
      let commits = 0;
      for (let i = 0; i < 16; i++) commits += (await s.runs.committed(`r${i}`)).size;
      expect(commits).toBe(16 * 10);
      const { batcher } = s.runs as PostgresRunStore;
      expect(batcher.commits).toBe(commits);
      // Alone, each commit is a statement of its own; together they share.
      expect(batcher.statements).toBeLessThan(commits / 2);
      const attempts = await s.runs.attempts("r3");
      expect(attempts.map((a) => a.nodeId).sort()).toEqual([...GROUP_NODES, "end", "start"].sort());
    } finally {
      await s.close();
    }
  });

  it("a commit PostgreSQL refuses fails alone; the rest of its batch commits", async () => {
    // pool_max=3: one batch statement in flight, so the commits after the first queue and go out together.
    const s = await openStores(`${await cluster.createDatabase()}?pool_max=3`);
    try {
      for (let i = 0; i < 8; i++) await s.runs.createRun(run(`x${i}`));
      const results = await Promise.allSettled(
        Array.from({ length: 8 }, (_, i) =>
          s.runs.commitNode(`x${i}`, commit("n", i === 5 ? "bad\u0000node" : "n", i)),
        ),
      );
      expect(results.map((r) => r.status)).toEqual([
        ...Array(5).fill("fulfilled"),
        "rejected",
        "fulfilled",
        "fulfilled",
      ]);
      expect((results[5] as PromiseRejectedResult).reason).toMatchObject({ code: "store.invalid_value" });
      // The first commit alone, the other seven in one statement (which failed, then each went alone).
      expect((s.runs as PostgresRunStore).batcher.statements).toBe(2);
      for (const i of [0, 1, 2, 3, 4, 6, 7]) {
        expect((await s.runs.committed(`x${i}`)).get("n")?.outputs).toEqual({ v: i });
        expect((await s.runs.artifacts(`x${i}`)).map((a) => [a.name, a.version, a.value])).toEqual([["v", 1, i]]);
      }
      expect(await s.runs.committed("x5")).toEqual(new Map());
    } finally {
      await s.close();
    }
  });

  it("within one burst: a key committed twice has one winner, and one node's successive keys count versions up", async () => {
    const s = await openStores(`${await cluster.createDatabase()}?pool_max=3`);
    try {
      await s.runs.createRun(run("y"));
      const [first, second, i0, i1, i2] = await Promise.all([
        s.runs.commitNode("y", commit("same", "a", "first")),
        s.runs.commitNode("y", commit("same", "a", "second")),
        s.runs.commitNode("y", commit("it#0", "it", 0)),
        s.runs.commitNode("y", commit("it#1", "it", 1)),
        s.runs.commitNode("y", commit("it#2", "it", 2)),
      ]);
      // The loser reads back what the winner committed.
      expect(first.outputs).toEqual({ v: "first" });
      expect(second.outputs).toEqual({ v: "first" });
      expect([i0, i1, i2].map((c) => c.outputs.v)).toEqual([0, 1, 2]);
      const versions = (await s.runs.artifacts("y", "it")).map((a) => [a.key, a.version]);
      expect(versions).toEqual([
        ["it#0", 1],
        ["it#1", 2],
        ["it#2", 3],
      ]);
      expect((await s.runs.artifacts("y", "a")).map((a) => a.value)).toEqual(["first"]);
    } finally {
      await s.close();
    }
  });

  it("a kill after a batch has committed, before its acknowledgement, loses no acknowledged node and re-runs none", async () => {
    const url = await cluster.createDatabase();
    const childLog = join(dir, "killed.log");
    const runId = "run-batch-kill";
    const acked = await killWhenHolding("pg-commit-batch-child.ts", ["run", url, childLog, runId]);
    expect(acked.length).toBeGreaterThanOrEqual(1);

    const s = await openStores(url);
    try {
      const committed = [...(await s.runs.committed(runId)).values()].map((c) => c.nodeId);
      // Nothing acknowledged is lost; the held batch's commits are in (so the kill fell after its commit).
      for (const node of acked) expect(committed).toContain(node);
      expect(committed.length).toBeGreaterThan(acked.length);
      const before = lines(childLog);
      const earlier = lines(log).length;
      const resumed = await resumeRun(runId, { store: s.runs, nodeTypes });
      expect(resumed.status).toBe("succeeded");
      expect(resumed.outputs).toEqual({ v1: 11, v2: 22, v3: 33, v4: 44 });
      const again = lines(log).slice(earlier);
      for (const node of committed) expect(again).not.toContain(node);
      expect(new Set([...before, ...again])).toEqual(new Set(GROUP_NODES));
      for (const node of committed.filter((n) => GROUP_NODES.includes(n)))
        expect(before.filter((n) => n === node)).toHaveLength(1);
    } finally {
      await s.close();
    }
  }, 60_000);
});
