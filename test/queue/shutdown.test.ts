// A worker stops promptly and cleanly on SIGTERM/SIGINT: running runs go back to the queue between nodes and
// another worker resumes them without re-running a node; with Redis or the database gone it still exits in
// seconds (it used to ignore SIGTERM for minutes once Redis was shut down).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { submitRun } from "../../src/queue/index.js";
import { openStores } from "../../src/store/open.js";
import { buildWorkflow } from "../support/build.js";
import { freePort, hasPostgres, type PgCluster, startPostgres } from "../support/postgres.js";
import { hasRedis, type RedisServer, startRedis } from "../support/redis.js";
import { spawnWorker, type WorkerProcess, waitFor } from "../support/workers.js";

const sleepNode = (id: string, n: number) => ({
  id,
  type: "code",
  code_language: "python3",
  code: `import time\ndef main(x):\n    time.sleep(0.5)\n    return {"v": (x or 0) + ${n}}`,
  variables: [{ variable: "x", value_selector: n === 1 ? ["start", "zero"] : [`s${n - 1}`, "v"] }],
  outputs: { v: { type: "number", children: null } },
});
const slow = buildWorkflow({
  nodes: [
    { id: "start", type: "start", variables: [{ variable: "zero", type: "number" }] },
    ...[1, 2, 3, 4, 5, 6].map((n) => sleepNode(`s${n}`, n)),
    { id: "end", type: "end", outputs: [{ variable: "total", value_selector: ["s6", "v"] }] },
  ],
  edges: [
    ["start", "s1"],
    ["s1", "s2"],
    ["s2", "s3"],
    ["s3", "s4"],
    ["s4", "s5"],
    ["s5", "s6"],
    ["s6", "end"],
  ],
});

/** Seconds from the signal to the exit, and how it exited. */
async function stopTimed(w: WorkerProcess, signal: NodeJS.Signals): Promise<{ secs: number; exit: unknown }> {
  const t0 = Date.now();
  w.p.kill(signal);
  const exit = await Promise.race([w.exited, new Promise((r) => setTimeout(() => r("still running"), 45_000))]);
  return { secs: (Date.now() - t0) / 1000, exit };
}

describe.skipIf(!hasRedis || (!hasPostgres && !process.env.CI))(
  "stopping a worker, and its database going away (Redis + PostgreSQL)",
  () => {
    let cluster: PgCluster;
    let db = "";
    const workers: WorkerProcess[] = [];
    const redises: RedisServer[] = [];
    // The default lock (30 s): with it a worker whose Redis was gone used to take minutes to stop.
    const start = (name: string, redisUrl: string) => {
      const w = spawnWorker({ name, redisUrl, db, concurrency: 2, lockMs: 30_000 });
      workers.push(w);
      return w;
    };
    beforeAll(async () => {
      cluster = await startPostgres();
      db = await cluster.createDatabase();
    }, 120_000);
    afterAll(async () => {
      for (const w of workers) w.p.kill("SIGKILL");
      await Promise.all(workers.map((w) => w.exited));
      for (const r of redises) await r.stop();
      await cluster?.stop();
    }, 60_000);

    it("SIGTERM mid-run: the worker hands the run back at once, another resumes it, no node runs twice", async () => {
      const redis = await startRedis();
      redises.push(redis);
      const first = start("s1", redis.url);
      await first.ready;
      const runId = await submitRun({ workflow: slow, inputs: { zero: 0 } }, { redisUrl: redis.url });
      const stores = await openStores(db);
      try {
        await waitFor(async () => (await stores.runs.committed(runId)).size >= 3, 60_000, "first commits");
        const stopped = await stopTimed(first, "SIGTERM");
        expect(stopped.exit).toBe(0);
        // The node in flight (0.5 s) finishes; nothing waits for the rest of the run.
        expect(stopped.secs).toBeLessThan(15);
        expect(first.log()).toMatch(/worker s1 stopped: 1 of 1 runs handed back\n/);
        expect((await stores.runs.getRun(runId))?.status).toBe("interrupted");

        const second = start("s2", redis.url);
        await second.ready;
        await waitFor(async () => (await stores.runs.getRun(runId))?.status === "succeeded", 60_000, "the resumed run");
        expect((await stores.runs.getRun(runId))?.outputs).toEqual({ total: 21 });
        expect(second.log()).toContain(`run ${runId} resumed`);
        // Handed back between nodes: every node was attempted exactly once, across both workers.
        const attempts = await stores.runs.attempts(runId);
        expect(attempts.map((a) => a.key)).toEqual(["start", "s1", "s2", "s3", "s4", "s5", "s6", "end"]);
        second.p.kill("SIGINT");
        expect(await second.exited).toBe(0);
      } finally {
        await stores.close();
      }
    }, 120_000);

    it("SIGTERM after Redis was shut down: the worker exits within seconds", async () => {
      const redis = await startRedis();
      redises.push(redis);
      const w = start("r1", redis.url);
      await w.ready;
      await redis.stop();
      // Long enough for the client to be between reconnect attempts: where the old worker hung.
      await new Promise((r) => setTimeout(r, 3_000));
      const stopped = await stopTimed(w, "SIGTERM");
      expect(stopped.exit).toBe(0);
      expect(stopped.secs).toBeLessThan(20);
      // The outage is reported on one line, not a stack trace per reconnect.
      expect(w.log()).not.toMatch(/\n\s+at /);
    }, 90_000);

    it("SIGTERM before Redis was ever reached: a clean stop too, not a death by signal", async () => {
      const nowhere = `redis://127.0.0.1:${await freePort()}`;
      const w = start("n1", nowhere);
      await waitFor(() => w.log().includes("Redis unreachable"), 60_000, "the worker to try Redis");
      const stopped = await stopTimed(w, "SIGTERM");
      expect(stopped.exit).toBe(0);
      expect(w.log()).toContain("worker n1 stopped: 0 of 0 runs handed back");
    }, 90_000);

    it("the database restarting mid-run: the job waits for it, the run completes, committed nodes never run again", async () => {
      const redis = await startRedis();
      redises.push(redis);
      const w = start("o1", redis.url);
      await w.ready;
      const runId = await submitRun({ workflow: slow, inputs: { zero: 0 } }, { redisUrl: redis.url });
      let stores = await openStores(db);
      await waitFor(async () => (await stores.runs.committed(runId)).size >= 3, 60_000, "first commits");
      const before = [...(await stores.runs.committed(runId)).keys()];
      await stores.close();
      await cluster.halt();
      await new Promise((r) => setTimeout(r, 2_000));
      await cluster.restart();
      stores = await openStores(db);
      try {
        await waitFor(
          async () => (await stores.runs.getRun(runId))?.status === "succeeded",
          60_000,
          "the run after the outage",
        );
        expect((await stores.runs.getRun(runId))?.outputs).toEqual({ total: 21 });
        const attempts = await stores.runs.attempts(runId);
        for (const key of before) expect(attempts.filter((a) => a.key === key)).toHaveLength(1);
        expect(w.log()).toContain(`run ${runId} resumed`);
      } finally {
        await stores.close();
      }
    }, 120_000);

    it("SIGINT after the database went away mid-run: the worker exits within seconds", async () => {
      const redis = await startRedis();
      redises.push(redis);
      const w = start("d1", redis.url);
      await w.ready;
      const runId = await submitRun({ workflow: slow, inputs: { zero: 0 } }, { redisUrl: redis.url });
      const stores = await openStores(db);
      await waitFor(async () => (await stores.runs.committed(runId)).size >= 2, 60_000, "first commits");
      await stores.close();
      await cluster.stop();
      const stopped = await stopTimed(w, "SIGINT");
      expect(stopped.exit).toBe(0);
      expect(stopped.secs).toBeLessThan(20);
    }, 90_000);
  },
);
