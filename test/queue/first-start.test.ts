import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Queue, QueueEvents } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createQueueRunner,
  QUEUE_NAME,
  type RunJob,
  type RunJobResult,
  type StartedWorker,
  startWorker,
  submitRun,
} from "../../src/queue/index.js";
import { openStores, type Stores } from "../../src/store/open.js";
import { oneTemplateChain } from "../support/build.js";
import { hasRedis, type RedisServer, startRedis } from "../support/redis.js";

// A job taken for the first time writes its run's record without reading the store first (issue 33: one
// database round trip less per queued run). A run id that already exists must still never run again.
const chain = oneTemplateChain();

describe.skipIf(!hasRedis)("a queued run's first start", () => {
  let redis: RedisServer;
  let db: string;
  let stores: Stores;
  let worker: StartedWorker;
  let queue: Queue<RunJob, RunJobResult>;
  let events: QueueEvents;

  beforeAll(async () => {
    redis = await startRedis();
    db = join(mkdtempSync(join(tmpdir(), "weft-first-start-")), "runs.db");
    stores = await openStores(db);
    worker = await startWorker({ redisUrl: redis.url, db, concurrency: 2, name: "f1" });
    const connection = { host: "127.0.0.1", port: Number(new URL(redis.url).port) };
    queue = new Queue(QUEUE_NAME, { connection });
    events = new QueueEvents(QUEUE_NAME, { connection });
    await events.waitUntilReady();
  });

  afterAll(async () => {
    await events?.close();
    await queue?.close();
    await worker?.close();
    await stores?.close();
    await redis?.stop();
  });

  it("a finished run submitted again under its id (its job removed) answers with its result and does not run again", async () => {
    const runner = await createQueueRunner({ redisUrl: redis.url });
    let first: RunJobResult;
    try {
      first = await runner.run({ workflow: chain, inputs: { n: "1" } });
    } finally {
      await runner.close();
    }
    expect(first).toMatchObject({ status: "succeeded", outputs: { out: "a1" }, resumed: false });
    const attempts = (await stores.runs.attempts(first.runId)).length;
    expect(attempts).toBeGreaterThan(0);

    // The job id is free again (as after 10,000 newer jobs); the new job is taken for the first time.
    await queue.remove(first.runId);
    await submitRun({ runId: first.runId, workflow: chain, inputs: { n: "2" } }, { redisUrl: redis.url });
    const job = await queue.getJob(first.runId);
    const again = (await job!.waitUntilFinished(events)) as RunJobResult;
    expect(again).toMatchObject({ runId: first.runId, status: "succeeded", outputs: { out: "a1" }, resumed: true });
    expect(await stores.runs.attempts(first.runId)).toHaveLength(attempts);
    expect((await stores.runs.getRun(first.runId))?.inputs).toEqual({ n: "1" });
  });

  it("a new run's first start runs it", async () => {
    const runId = await submitRun({ workflow: chain, inputs: { n: "3" } }, { redisUrl: redis.url });
    const job = await queue.getJob(runId);
    const r = (await job!.waitUntilFinished(events)) as RunJobResult;
    expect(r).toMatchObject({ status: "succeeded", outputs: { out: "a3" }, resumed: false });
  });
});
