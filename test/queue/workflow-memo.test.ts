import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunObserver } from "../../src/engine/observer.js";
import type { Workflow } from "../../src/ir/workflow.js";
import { createQueueRunner, type StartedWorker, startWorker } from "../../src/queue/index.js";
import { WorkflowMemo } from "../../src/queue/workflow-memo.js";
import { oneTemplateChain } from "../support/build.js";
import { hasRedis, type RedisServer, startRedis } from "../support/redis.js";

// A worker takes each job's workflow as a new object (the job carries it as JSON); jobs of the same workflow
// must run on one object, so what the engine memoises per workflow and node (parsed configs, the graph index)
// is derived once per workflow, not once per run (issue 33: a tenth of a queued run's CPU).

const other = () => oneTemplateChain("b{{ n }}");

describe("WorkflowMemo", () => {
  it("hands back the object kept for a workflow of the same text, and keeps a different one apart", () => {
    const memo = new WorkflowMemo();
    const first = oneTemplateChain();
    expect(memo.same(first)).toBe(first);
    expect(memo.same(oneTemplateChain())).toBe(first);
    const b = other();
    expect(memo.same(b)).toBe(b);
    expect(memo.same(oneTemplateChain())).toBe(first);
    expect(memo.size).toBe(2);
  });

  it.each([
    ["workflows", (chars: number) => new WorkflowMemo(chars * 1000, 4)],
    ["characters", (chars: number) => new WorkflowMemo(chars * 4.5, 100)],
  ])("keeps at most its bound of %s, dropping the least recently used first", (_bound, make) => {
    // Five workflows of the same length: four fit.
    const w = (i: number) => ({ ...oneTemplateChain(), name: `w${i}` });
    const memo = make(JSON.stringify(w(0)).length);
    const kept = [0, 1, 2, 3].map((i) => memo.same(w(i)));
    expect(memo.same(w(0))).toBe(kept[0]); // w0 used last: w1 is the oldest now
    memo.same(w(4));
    expect(memo.size).toBe(4);
    const w1 = w(1);
    expect(memo.same(w1)).toBe(w1); // w1 was dropped; w2 goes now
    expect(memo.same(w(0))).toBe(kept[0]);
    expect(memo.same(w(3))).toBe(kept[3]);
  });

  it("does not keep a workflow larger than a quarter of its bound", () => {
    const chars = JSON.stringify(oneTemplateChain()).length;
    const memo = new WorkflowMemo(chars * 3);
    const a = oneTemplateChain();
    expect(memo.same(a)).toBe(a);
    const again = oneTemplateChain();
    expect(memo.same(again)).toBe(again);
    expect(memo.size).toBe(0);
  });
});

describe.skipIf(!hasRedis)("a worker's jobs of one workflow", () => {
  let redis: RedisServer;
  let worker: StartedWorker;
  const seen: Array<{ runId: string; workflow: Workflow }> = [];
  const observer: RunObserver = {
    run: (info, body) => {
      seen.push({ runId: info.runId, workflow: info.workflow });
      return body();
    },
    attempt: (_info, body) => body(),
  };

  beforeAll(async () => {
    redis = await startRedis();
    const db = join(mkdtempSync(join(tmpdir(), "weft-workflow-memo-")), "runs.db");
    worker = await startWorker({ redisUrl: redis.url, db, concurrency: 1, name: "m1", observer });
  });

  afterAll(async () => {
    await worker?.close();
    await redis?.stop();
  });

  it("run on one object per workflow, each with its own workflow's result", async () => {
    const runner = await createQueueRunner({ redisUrl: redis.url });
    try {
      const r1 = await runner.run({ workflow: oneTemplateChain(), inputs: { n: "1" } });
      const r2 = await runner.run({ workflow: other(), inputs: { n: "2" } });
      const r3 = await runner.run({ workflow: oneTemplateChain(), inputs: { n: "3" } });
      expect([r1.outputs, r2.outputs, r3.outputs]).toEqual([{ out: "a1" }, { out: "b2" }, { out: "a3" }]);
      const wf = (runId: string) => seen.find((s) => s.runId === runId)!.workflow;
      expect(wf(r3.runId)).toBe(wf(r1.runId));
      expect(wf(r2.runId)).not.toBe(wf(r1.runId));
    } finally {
      await runner.close();
    }
  });
});
