import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { submitForm } from "../../src/engine/human-input.js";
import { evaluateWorkflowOnDomain } from "../../src/eval/sopbench/run-workflow.js";
import { loadReferenceWorkflow } from "../../src/eval/sopbench/workflows/index.js";
import { createQueueRunner, enqueueResume, submitRun } from "../../src/queue/index.js";
import { openStores } from "../../src/store/open.js";
import { buildWorkflow, tpl } from "../support/build.js";
import { hasPostgres, type PgCluster, startPostgres } from "../support/postgres.js";
import { hasRedis, type RedisServer, startRedis } from "../support/redis.js";
import { spawnWorker, type WorkerProcess, waitFor } from "../support/workers.js";

/**
 * The same distributed-run checks on both shared stores: workers sharing one SQLite file (one machine), and
 * workers sharing only Redis and PostgreSQL, each in a working directory of its own (any machines).
 */
interface Backend {
  name: string;
  available: boolean;
  /** The database the workers share; called once per block. */
  setUp(): Promise<{ db: string; sharedCwd?: string; tearDown(): Promise<void> }>;
}

const sqlite: Backend = {
  name: "a shared SQLite file",
  available: true,
  async setUp() {
    const dir = mkdtempSync(join(tmpdir(), "weft-queue-"));
    const db = join(dir, "runs.db");
    await (await openStores(db)).close();
    return { db, sharedCwd: dir, tearDown: async () => {} };
  },
};

let cluster: PgCluster | undefined;
const postgres: Backend = {
  name: "PostgreSQL, no shared file",
  available: hasPostgres || !!process.env.CI,
  async setUp() {
    cluster = await startPostgres();
    return { db: await cluster.createDatabase(), tearDown: () => cluster!.stop() };
  },
};

const chain = buildWorkflow({
  nodes: [
    { id: "start", type: "start", variables: [{ variable: "n", type: "text-input" }] },
    tpl("a", "a{{ n }}", { n: ["start", "n"] }),
    tpl("b", "{{ a }}b", { a: ["a", "output"] }),
    { id: "end", type: "end", outputs: [{ variable: "out", value_selector: ["b", "output"] }] },
  ],
  edges: [
    ["start", "a"],
    ["a", "b"],
    ["b", "end"],
  ],
});

const sleepNode = (id: string, n: number) => ({
  id,
  type: "code",
  code_language: "python3",
  code: `import time\ndef main(x):\n    time.sleep(0.4)\n    return {"v": (x or 0) + ${n}}`,
  variables: [{ variable: "x", value_selector: n === 1 ? ["start", "zero"] : [`s${n - 1}`, "v"] }],
  outputs: { v: { type: "number", children: null } },
});
/** Six 0.4 s nodes in a row: long enough to kill a worker in the middle. */
const slowChain = buildWorkflow({
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

function describeQueue(backend: Backend, withEval: boolean): void {
  describe.skipIf(!hasRedis || !backend.available)(`distributed runs on BullMQ + Redis, ${backend.name}`, () => {
    let redis: RedisServer;
    let db = "";
    let sharedCwd: string | undefined;
    let tearDown = async () => {};
    const workers: WorkerProcess[] = [];
    const start = (name: string) => {
      const w = spawnWorker({ name, redisUrl: redis.url, db, cwd: sharedCwd });
      workers.push(w);
      return w;
    };

    beforeAll(async () => {
      redis = await startRedis();
      ({ db, sharedCwd, tearDown } = await backend.setUp());
    }, 120_000);
    afterAll(async () => {
      for (const w of workers) w.p.kill("SIGKILL");
      await Promise.all(workers.map((w) => w.exited));
      await redis?.stop();
      await tearDown();
    }, 60_000);

    it("3 workers complete 500 queued runs, each exactly once", async () => {
      const three = [start("w1"), start("w2"), start("w3")];
      await Promise.all(three.map((w) => w.ready));
      const ids = await Promise.all(
        Array.from({ length: 500 }, (_, i) =>
          submitRun({ workflow: chain, inputs: { n: String(i) } }, { redisUrl: redis.url }),
        ),
      );
      const stores = await openStores(db);
      const store = stores.runs;
      try {
        await waitFor(
          async () => (await store.listRuns({ limit: 1000 })).filter((r) => r.status === "succeeded").length === 500,
          180_000,
          "500 runs",
        );
        const runs = new Map((await store.listRuns({ limit: 1000 })).map((r) => [r.id, r]));
        expect(runs.size).toBe(500);
        for (const [i, id] of ids.entries()) expect(runs.get(id)?.outputs).toEqual({ out: `a${i}b` });
        for (const id of ids) {
          const attempts = await store.attempts(id);
          // every node attempted and committed exactly once
          expect(attempts.map((a) => a.nodeId).sort()).toEqual(["a", "b", "end", "start"]);
          expect((await store.committed(id)).size).toBe(4);
          expect((await store.artifacts(id)).every((a) => a.version === 1)).toBe(true);
        }
      } finally {
        await stores.close();
      }
      // all three workers took part
      for (const w of three) expect(w.log()).toMatch(/run \S+ started/);
    }, 240_000);

    it("a worker killed mid-run loses nothing: another worker resumes the run, committed nodes never run again", async () => {
      const runId = await submitRun({ workflow: slowChain, inputs: { zero: 0 } }, { redisUrl: redis.url });
      const stores = await openStores(db);
      const store = stores.runs;
      try {
        await waitFor(async () => (await store.committed(runId)).size >= 3, 60_000, "first commits");
        const committedBefore = [...(await store.committed(runId)).keys()];
        // SIGKILL the worker that took the run (its log says so); a fresh worker must take over.
        const holder = workers.find((w) => w.p.exitCode === null && w.log().includes(`run ${runId} started`));
        expect(holder, "a worker reported the run").toBeDefined();
        holder!.p.kill("SIGKILL");
        const fresh = start("w4");
        await fresh.ready;
        await waitFor(async () => (await store.getRun(runId))?.status === "succeeded", 60_000, "takeover");
        expect((await store.getRun(runId))?.outputs).toEqual({ total: 21 });
        const attempts = await store.attempts(runId);
        for (const key of committedBefore) expect(attempts.filter((a) => a.key === key)).toHaveLength(1);
        // at most the node in flight at the kill ran twice
        const counts = new Map<string, number>();
        for (const a of attempts) counts.set(a.key, (counts.get(a.key) ?? 0) + 1);
        expect([...counts.values()].filter((c) => c > 1).length).toBeLessThanOrEqual(1);
        expect((await store.committed(runId)).size).toBe(8);
        const taker = workers.find((w) => w.p.exitCode === null && w.log().includes(`run ${runId} resumed`));
        expect(taker, "another worker resumed the run").toBeDefined();
      } finally {
        await stores.close();
      }
    }, 120_000);

    it("a paused human-input run holds no worker, resumes on another worker once answered, and times out by a delayed job", async () => {
      const ask = (timeout: number) => ({
        id: "ask",
        type: "human-input",
        title: "Approve",
        form_content: "Ship {{#draft.output#}}?",
        inputs: [],
        user_actions: [{ id: "yes", title: "Yes", button_style: "primary" }],
        timeout,
        timeout_unit: "hour",
      });
      const flow = (timeout: number) =>
        buildWorkflow({
          nodes: [
            { id: "start", type: "start", variables: [] },
            tpl("draft", "v1"),
            ask(timeout),
            tpl("yes", "shipped {{ d }}", { d: ["draft", "output"] }),
            tpl("late", "expired"),
            {
              id: "agg",
              type: "variable-aggregator",
              output_type: "string",
              variables: [
                ["yes", "output"],
                ["late", "output"],
              ],
            },
            { id: "end", type: "end", outputs: [{ variable: "out", value_selector: ["agg", "output"] }] },
          ],
          edges: [
            ["start", "draft"],
            ["draft", "ask"],
            ["ask", "yes", "yes"],
            ["ask", "__timeout", "late"],
            ["yes", "agg"],
            ["late", "agg"],
            ["agg", "end"],
          ],
        });
      const stores = await openStores(db);
      try {
        await start("h1").ready;
        const runId = await submitRun({ workflow: flow(24), inputs: {} }, { redisUrl: redis.url });
        await waitFor(async () => (await stores.runs.getRun(runId))?.status === "paused", 60_000, "the pause");
        const holder = workers.find((w) => w.p.exitCode === null && w.log().includes(`run ${runId} started`));
        expect(holder, "a worker reported the run").toBeDefined();
        holder!.p.kill("SIGKILL");
        await start("h2").ready;
        const [form] = await stores.forms.runForms(runId);
        await submitForm(stores.forms, form!.id, { action: "yes", inputs: {} }, Date.now());
        const done = await enqueueResume(runId, { db, redisUrl: redis.url });
        expect(done).toMatchObject({ status: "succeeded", outputs: { out: "shipped v1" } });
        expect((await stores.runs.attempts(runId)).filter((a) => a.nodeId === "draft")).toHaveLength(1);
        expect(holder!.log()).not.toContain(`run ${runId} resumed`);

        // Nobody answers: the delayed resume job takes the timeout path (0.0005 h = 1.8 s).
        const late = await submitRun({ workflow: flow(0.0005), inputs: {} }, { redisUrl: redis.url });
        await waitFor(async () => (await stores.runs.getRun(late))?.status === "succeeded", 60_000, "the timeout");
        expect((await stores.runs.getRun(late))?.outputs).toEqual({ out: "expired" });
      } finally {
        await stores.close();
      }
    }, 120_000);

    if (withEval)
      it("an evaluation runs on the workers with a fresh tool environment per task and scores as in process", async () => {
        const wf = loadReferenceWorkflow("customer_service");
        const local = await evaluateWorkflowOnDomain(wf, "customer_service", { limit: 12 });
        const queue = await createQueueRunner({ redisUrl: redis.url });
        try {
          const remote = await evaluateWorkflowOnDomain(wf, "customer_service", {
            limit: 12,
            runner: (job) =>
              queue.run({
                workflow: job.workflow,
                inputs: job.inputs,
                toolEnv: { kind: "sopbench", domain: job.domain, options: job.env as Record<string, unknown> },
              }),
          });
          expect(remote.strict).toBe(local.strict);
          expect(remote.perRun[0]!.errors).toBe(0);
        } finally {
          await queue.close();
        }
      }, 120_000);
  });
}

describeQueue(sqlite, true);
describeQueue(postgres, false);
