// A queued run of an app (what a schedule with Redis configured submits) sees the app's environment variables
// and secrets on the worker, as the same run sees them on `weft serve`. The worker here is the real
// startWorker (in process) on a shared SQLite file and a real Redis.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Workflow } from "../../src/ir/workflow.js";
import { type StartedWorker, startWorker, submitRun } from "../../src/queue/index.js";
import { AppEnv } from "../../src/secrets/app-env.js";
import { KEY_ENV, KeyProvider } from "../../src/secrets/key.js";
import { openStores, type Stores } from "../../src/store/open.js";
import { hasRedis, type RedisServer, startRedis } from "../support/redis.js";

const wf: Workflow = {
  weft: 1,
  name: "env echo",
  description: "",
  mode: "workflow",
  nodes: [
    { id: "start", type: "start", title: "Start", config: { variables: [] } },
    {
      id: "t",
      type: "template-transform",
      title: "Echo",
      config: {
        template: "{{ k }}/{{ r }}",
        variables: [
          { variable: "k", value_selector: ["env", "API_KEY"] },
          { variable: "r", value_selector: ["env", "REGION"] },
        ],
      },
    },
    {
      id: "end",
      type: "end",
      title: "End",
      config: { outputs: [{ variable: "out", value_selector: ["t", "output"] }] },
    },
  ],
  edges: [
    { source: "start", sourcePort: "source", target: "t" },
    { source: "t", sourcePort: "source", target: "end" },
  ],
  environment_variables: [
    { name: "API_KEY", value_type: "secret", value: "" },
    { name: "REGION", value_type: "string", value: "default-region" },
  ],
  conversation_variables: [],
};

describe.skipIf(!hasRedis && !process.env.CI)("queued runs of an app get its env", () => {
  const dir = mkdtempSync(join(tmpdir(), "weft-queued-env-"));
  const db = join(dir, "weft.db");
  const key = randomBytes(32).toString("base64");
  let redis: RedisServer;
  let stores: Stores;
  let worker: StartedWorker;
  const savedKey = process.env[KEY_ENV];

  beforeAll(async () => {
    redis = await startRedis();
    // The worker reads the key as `weft worker` does: WEFT_SECRET_KEY (or the key file beside the database).
    process.env[KEY_ENV] = key;
    stores = await openStores(db);
    worker = await startWorker({ db, redisUrl: redis.url, name: "env-worker", concurrency: 2 });
  }, 60_000);
  afterAll(async () => {
    await worker?.close();
    await stores?.close();
    await redis?.stop();
    if (savedKey === undefined) delete process.env[KEY_ENV];
    else process.env[KEY_ENV] = savedKey;
    rmSync(dir, { recursive: true, force: true });
  });

  it("the secret and the stored variable reach the run; a run of no app gets the declared defaults", async () => {
    const { app } = await stores.apps.createApp({ name: "env echo", mode: "workflow" }, wf, "import");
    const env = new AppEnv(stores.env, stores.apps, new KeyProvider(join(dir, "unused.key"), key));
    await env.set(app.id, "API_KEY", "secret", "s3cret-value");
    await env.set(app.id, "REGION", "string", "eu-west");
    const runId = await submitRun({ appId: app.id, workflow: wf, inputs: {} }, { redisUrl: redis.url });
    await expect.poll(async () => (await stores.runs.getRun(runId))?.status, { timeout: 30_000 }).toBe("succeeded");
    // The secret was in the run (its clear text is redacted from what the run stored, as on `weft serve`; without
    // the app's env the output would be "/default-region").
    expect((await stores.runs.getRun(runId))!.outputs).toEqual({ out: "[secret]/eu-west" });
    const trace = JSON.stringify(await stores.runs.attempts(runId));
    expect(trace).not.toContain("s3cret-value");

    const bare = await submitRun({ workflow: wf, inputs: {} }, { redisUrl: redis.url });
    await expect.poll(async () => (await stores.runs.getRun(bare))?.status, { timeout: 30_000 }).toBe("succeeded");
    expect((await stores.runs.getRun(bare))!.outputs).toEqual({ out: "/default-region" });
  });
});
