import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { QueueEvents } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createQueueRunner, enqueueRun, QUEUE_NAME, type StartedWorker, startWorker } from "../../src/queue/index.js";
import { openStores } from "../../src/store/open.js";
import type { RunEvent } from "../../src/store/run-events.js";
import { oneTemplateChain } from "../support/build.js";
import { hasRedis, type RedisServer, startRedis } from "../support/redis.js";

// A worker publishes a run's events to Redis (one script call and stream entry each) only for a submitter that
// follows them: a queued run that nobody watches cost several times its in-process CPU in those calls (issue 33).
const chain = oneTemplateChain();

describe.skipIf(!hasRedis)("queued runs publish progress only to a submitter that follows it", () => {
  let redis: RedisServer;
  let db: string;
  let worker: StartedWorker;
  let events: QueueEvents;
  const published = new Map<string, number>();

  beforeAll(async () => {
    redis = await startRedis();
    db = join(mkdtempSync(join(tmpdir(), "weft-progress-")), "runs.db");
    await (await openStores(db)).close();
    worker = await startWorker({ redisUrl: redis.url, db, concurrency: 2, name: "p1" });
    events = new QueueEvents(QUEUE_NAME, { connection: { host: "127.0.0.1", port: Number(new URL(redis.url).port) } });
    events.on("progress", ({ jobId }) => published.set(jobId, (published.get(jobId) ?? 0) + 1));
    await events.waitUntilReady();
  });

  afterAll(async () => {
    await events?.close();
    await worker?.close();
    await redis?.stop();
  });

  it("a run waited for without a listener (createQueueRunner) publishes none; enqueueRun still gets every event", async () => {
    const runner = await createQueueRunner({ redisUrl: redis.url });
    let quiet: string;
    try {
      const result = await runner.run({ workflow: chain, inputs: { n: "1" } });
      expect(result).toMatchObject({ status: "succeeded", outputs: { out: "a1" } });
      quiet = result.runId;
    } finally {
      await runner.close();
    }
    const seen: RunEvent["type"][] = [];
    const followed = await enqueueRun(
      chain,
      { n: "2" },
      { db, redisUrl: redis.url, onEvent: (e) => seen.push(e.type) },
    );
    expect(followed.status).toBe("succeeded");
    expect(followed.outputs).toEqual({ out: "a2" });
    expect(seen).toEqual(expect.arrayContaining(["run_started", "node_finished", "run_finished"]));
    // Redis delivers the event stream in order: once the second run's events are here, the first run's
    // would have been too.
    await expect.poll(() => published.get(followed.runId) ?? 0).toBe(seen.length);
    expect(published.get(quiet) ?? 0).toBe(0);
  });
});
