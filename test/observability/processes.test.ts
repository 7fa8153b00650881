/**
 * Observability of the real processes (bin/weft on the built JavaScript): one `weft serve --redis` and one
 * `weft worker --metrics-port 0` on one SQLite database and a throwaway Redis, both exporting traces over
 * OTLP/HTTP (protobuf) to one loopback receiver.
 * (a) Runs through the service API and queued runs (`weft run --queue`): both `/metrics` endpoints, parsed by a
 *     Prometheus text-format parser, count exactly the runs each process made.
 * (b) A queued run fired by the server's scheduler: the producer span exported by the serve process and the
 *     run's spans exported by the worker process are one trace, the worker's run span a child of the producer.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Workflow } from "../../src/ir/workflow.js";
import { rootIdsOf } from "../../src/observability/tracing.js";
import { openStores } from "../../src/store/open.js";
import { syncAppTriggers } from "../../src/triggers/sync.js";
import { type SampleServer, serveSample } from "../server/helpers.js";
import { type OtlpReceiver, startOtlpReceiver } from "../support/otlp-receiver.js";
import { hasRedis, type RedisServer, startRedis } from "../support/redis.js";
import { WEFT_BIN } from "../support/weft-bin.js";
import { spawnWorker, type WorkerProcess } from "../support/workers.js";

interface Family {
  name: string;
  type: string;
  metrics: Array<{ labels?: Record<string, string>; value?: string; count?: string }>;
}
const parsePrometheus = createRequire(import.meta.url)("parse-prometheus-text-format") as (t: string) => Family[];

// The test process validates the 6-field (seconds) cron when it imports the scheduled app, as the server does.
process.env.WEFT_SCHEDULE_SECONDS = "1";

const dir = mkdtempSync(join(tmpdir(), "weft-obs-processes-"));
const db = join(dir, "weft.db");
let redis: RedisServer;
let receiver: OtlpReceiver;
let serve: SampleServer;
let worker: WorkerProcess;
let workerMetrics: string;
let appId: string;
let appKey: string;

function otelEnv(service: string): Record<string, string> {
  return {
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url.replace(/\/v1\/traces$/, ""),
    OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf",
    OTEL_SERVICE_NAME: service,
    // Export within a tenth of a second, so the test waits for spans, not for the default 5 s batch.
    OTEL_BSP_SCHEDULE_DELAY: "100",
    WEFT_SCHEDULE_SECONDS: "1",
    WEFT_SCHEDULE_POLL_MS: "200",
  };
}

function echoWorkflow(name: string): Workflow {
  return {
    weft: 1,
    name,
    description: "",
    mode: "workflow",
    nodes: [
      {
        id: "start",
        type: "start",
        title: "Start",
        config: { variables: [{ variable: "q", label: "Q", type: "text-input", required: true }] },
      },
      {
        id: "t",
        type: "template-transform",
        title: "Echo",
        config: { template: "echo {{ q }}", variables: [{ variable: "q", value_selector: ["start", "q"] }] },
      },
      {
        id: "end",
        type: "end",
        title: "End",
        config: { outputs: [{ variable: "a", value_selector: ["t", "output"] }] },
      },
    ],
    edges: [
      { source: "start", sourcePort: "source", target: "t" },
      { source: "t", sourcePort: "source", target: "end" },
    ],
    environment_variables: [],
    conversation_variables: [],
  } as Workflow;
}

function everySecond(): Workflow {
  return {
    weft: 1,
    name: "every second",
    description: "",
    mode: "workflow",
    nodes: [
      {
        id: "sched",
        type: "trigger-schedule",
        title: "Schedule",
        config: { mode: "cron", cron_expression: "* * * * * *", timezone: "UTC", missed_ticks: "skip" },
      },
      {
        id: "t",
        type: "template-transform",
        title: "Tick",
        config: {
          template: "tick {{ at }}",
          variables: [{ variable: "at", value_selector: ["sched", "current_time"] }],
        },
      },
      {
        id: "end",
        type: "end",
        title: "End",
        config: { outputs: [{ variable: "a", value_selector: ["t", "output"] }] },
      },
    ],
    edges: [
      { source: "sched", sourcePort: "source", target: "t" },
      { source: "t", sourcePort: "source", target: "end" },
    ],
    environment_variables: [],
    conversation_variables: [],
  } as Workflow;
}

async function scrape(url: string): Promise<Family[]> {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  return parsePrometheus(await res.text());
}
const sum = (fs: Family[], name: string, labels: Record<string, string> = {}) =>
  (fs.find((f) => f.name === name)?.metrics ?? [])
    .filter((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v))
    .reduce((n, m) => n + Number(m.value ?? 0), 0);

/** `weft run --queue`: a third process submits the run and waits for the worker's result. */
function runQueued(file: string, q: string): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const p = spawn(
      WEFT_BIN,
      ["run", file, "--queue", "--redis", redis.url, "--db", db, "--json", "--input", `q=${q}`],
      {
        cwd: dir,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let out = "";
    p.stdout!.on("data", (d) => {
      out += d;
    });
    p.stderr!.on("data", (d) => {
      out += d;
    });
    p.once("exit", (code) => resolve({ code, out }));
  });
}

describe.skipIf(!hasRedis)("serve and worker processes: /metrics and one trace across them", () => {
  beforeAll(async () => {
    [redis, receiver] = await Promise.all([startRedis(), startOtlpReceiver()]);
    const stores = await openStores(db);
    try {
      const { app } = await stores.apps.createApp({ name: "echo", mode: "workflow" }, echoWorkflow("echo"), "import");
      appId = app.id;
      appKey = (await stores.service.createAppKey(app.id)).key;
    } finally {
      await stores.close();
    }
    worker = spawnWorker({
      name: "w1",
      redisUrl: redis.url,
      db,
      // The server fires the schedules: the trace must cross from its process to this one.
      args: ["--metrics-port", "0", "--no-schedules"],
      env: otelEnv("weft-worker"),
    });
    serve = await serveSample(db, dir, { args: ["--redis", redis.url], env: otelEnv("weft-serve") });
    await worker.ready;
    workerMetrics = /metrics on (\S+)/.exec(worker.log())![1]!;
  }, 120_000);
  afterAll(async () => {
    await serve?.stop();
    if (worker && worker.p.exitCode === null) {
      worker.p.kill("SIGTERM");
      await worker.exited;
    }
    await Promise.all([redis?.stop(), receiver?.close()]);
    rmSync(dir, { recursive: true, force: true });
  });

  it("each process's /metrics counts the runs it made: 3 through /v1 on serve, 2 queued on the worker", async () => {
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${serve.url}/v1/workflows/run`, {
        method: "POST",
        headers: { authorization: `Bearer ${appKey}`, "content-type": "application/json" },
        body: JSON.stringify({ inputs: { q: `v1-${i}` }, response_mode: "blocking", user: "u" }),
      });
      expect(((await res.json()) as { data: { status: string } }).data.status).toBe("succeeded");
    }
    const file = join(dir, "echo.json");
    writeFileSync(file, JSON.stringify(echoWorkflow("queued echo")));
    const queued = await Promise.all([runQueued(file, "q-0"), runQueued(file, "q-1")]);
    for (const r of queued) expect(r.code, r.out).toBe(0);

    const s = await scrape(`${serve.url}/metrics`);
    expect(sum(s, "weft_runs_started_total", { app: appId, source: "serve" })).toBe(3);
    expect(sum(s, "weft_runs_finished_total", { app: appId, source: "serve", status: "succeeded" })).toBe(3);
    // The worker ran nothing but the queued runs.
    const w = await scrape(workerMetrics);
    expect(sum(w, "weft_runs_started_total")).toBe(2);
    expect(sum(w, "weft_runs_started_total", { source: "queue" })).toBe(2);
    expect(sum(w, "weft_runs_finished_total", { source: "queue", status: "succeeded" })).toBe(2);
    expect(w.find((f) => f.name === "weft_queue_wait_seconds")?.type).toBe("HISTOGRAM");
    const text = await (await fetch(workerMetrics)).text();
    expect(text).toMatch(/weft_queue_wait_seconds_count\{job="run"\} 2\n/);
    expect(text).toMatch(/weft_node_duration_seconds_count\{type="template-transform",outcome="ok"\} 2\n/);
  }, 120_000);

  it("a run the server queues is one trace: serve's producer span is the parent of the worker's run span", async () => {
    const stores = await openStores(db);
    let scheduled: string;
    try {
      const { app } = await stores.apps.createApp({ name: "tick", mode: "workflow" }, everySecond(), "import");
      scheduled = app.id;
      await syncAppTriggers(stores, app.id);
    } finally {
      await stores.close();
    }
    // Wait for a scheduled run whose spans both processes have exported.
    const runSpan = () =>
      receiver.spans.find(
        (s) =>
          s.resource["service.name"] === "weft-worker" &&
          s.name === "run every second" &&
          receiver.spans.some((p) => p.resource["service.name"] === "weft-serve" && p.spanId === s.parentSpanId) &&
          receiver.spans.some((n) => n.parentSpanId === s.spanId && n.attributes["weft.node.id"] === "end"),
      );
    await expect.poll(() => runSpan() !== undefined, { timeout: 60_000, interval: 100 }).toBe(true);
    const run = runSpan()!;
    const runId = String(run.attributes["weft.run.id"]);
    expect(run.attributes["weft.app.id"]).toBe(scheduled!);
    expect(run.attributes["weft.run.source"]).toBe("queue");
    const producer = receiver.spans.find((p) => p.spanId === run.parentSpanId)!;
    expect(producer.name).toBe("queue every second");
    expect(producer.attributes["weft.run.id"]).toBe(runId);
    expect(producer.attributes["messaging.system"]).toBe("bullmq");
    // The producer is the trace's root, with the ids a later segment of the run links to.
    expect(producer.parentSpanId).toBe("");
    expect({ traceId: producer.traceId, spanId: producer.spanId }).toEqual(rootIdsOf(runId));
    expect(run.traceId).toBe(producer.traceId);
    const nodes = receiver.spans.filter((s) => s.parentSpanId === run.spanId);
    expect(nodes.map((n) => n.attributes["weft.node.id"]).sort()).toEqual(["end", "sched", "t"]);
    for (const n of nodes) {
      expect(n.traceId).toBe(run.traceId);
      expect(n.resource["service.name"]).toBe("weft-worker");
    }
  }, 120_000);
});
