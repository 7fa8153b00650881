import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { submitForm } from "../../src/engine/human-input.js";
import { evaluateWorkflowOnDomain } from "../../src/eval/sopbench/run-workflow.js";
import { loadReferenceWorkflow } from "../../src/eval/sopbench/workflows/index.js";
import { createQueueRunner, enqueueResume, submitRun } from "../../src/queue/index.js";
import { openStores } from "../../src/store/open.js";
import { buildWorkflow, tpl } from "../support/build.js";

const root = resolve(import.meta.dirname, "../..");
const tsx = `file://${join(root, "node_modules/tsx/dist/esm/index.mjs")}`;
const hasRedis = existsSync("/usr/bin/redis-server");

async function freePort(): Promise<number> {
  return new Promise((res) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => res(port));
    });
  });
}

const procs: ChildProcess[] = [];
const workers: Array<{ name: string; p: ChildProcess; log: () => string }> = [];
let redisUrl = "";
let db = "";

function startWorker(name: string) {
  const p = spawn(
    process.execPath,
    [
      "--import",
      tsx,
      join(root, "src/cli/main.ts"),
      "worker",
      "--redis",
      redisUrl,
      "--db",
      db,
      "--concurrency",
      "8",
      "--lock-ms",
      "6000",
      "--name",
      name,
    ],
    {
      stdio: ["ignore", "ignore", "pipe"],
      // A scratch cwd with no weft.config.json: the worker runs with default services.
      cwd: join(db, ".."),
      env: Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== "WEFT_CONFIG")),
    },
  );
  let log = "";
  p.stderr!.on("data", (d) => (log += d));
  procs.push(p);
  workers.push({ name, p, log: () => log });
  const ready = new Promise<void>((res, rej) => {
    const t = setInterval(() => {
      if (log.includes("ready")) clearInterval(t), res();
      if (p.exitCode !== null) clearInterval(t), rej(new Error(`worker ${name} exited: ${log}`));
    }, 50);
  });
  return { p, ready, log: () => log };
}

async function waitFor(cond: () => boolean | Promise<boolean>, ms: number, what: string) {
  const t0 = Date.now();
  while (!(await cond())) {
    if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.skipIf(!hasRedis)("distributed runs on BullMQ + Redis", () => {
  beforeAll(async () => {
    const port = await freePort();
    const redis = spawn(
      "redis-server",
      ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
      { stdio: "ignore" },
    );
    procs.push(redis);
    redisUrl = `redis://127.0.0.1:${port}`;
    db = join(mkdtempSync(join(tmpdir(), "weft-queue-")), "runs.db");
    await (await openStores(db)).close();
    await new Promise((r) => setTimeout(r, 300));
  });
  afterAll(() => {
    for (const p of procs) p.kill("SIGKILL");
  });

  it("3 workers complete 500 queued runs, each exactly once", async () => {
    const workers = [startWorker("w1"), startWorker("w2"), startWorker("w3")];
    await Promise.all(workers.map((w) => w.ready));
    const wf = buildWorkflow({
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
    const ids = await Promise.all(
      Array.from({ length: 500 }, (_, i) => submitRun({ workflow: wf, inputs: { n: String(i) } }, { redisUrl })),
    );
    const stores = await openStores(db);
    const store = stores.runs;
    await waitFor(
      async () => (await store.listRuns({ limit: 1000 })).filter((r) => r.status === "succeeded").length === 500,
      180_000,
      "500 runs",
    );
    const runs = new Map((await store.listRuns({ limit: 1000 })).map((r) => [r.id, r]));
    ids.forEach((id, i) => expect(runs.get(id)?.outputs).toEqual({ out: `a${i}b` }));
    for (const id of ids) {
      const attempts = await store.attempts(id);
      // every node attempted and committed exactly once
      expect(attempts.map((a) => a.nodeId).sort()).toEqual(["a", "b", "end", "start"]);
      expect((await store.committed(id)).size).toBe(4);
    }
    await stores.close();
    // all three workers took part
    for (const w of workers) expect(w.log()).toMatch(/run \S+ started/);
  }, 240_000);

  it("a worker killed mid-run loses nothing: another worker resumes the run", async () => {
    const sleepNode = (id: string, n: number) => ({
      id,
      type: "code",
      code_language: "python3",
      code: `import time\ndef main(x):\n    time.sleep(0.4)\n    return {"v": (x or 0) + ${n}}`,
      variables: [{ variable: "x", value_selector: n === 1 ? ["start", "zero"] : [`s${n - 1}`, "v"] }],
      outputs: { v: { type: "number", children: null } },
    });
    const wf = buildWorkflow({
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
    const runId = await submitRun({ workflow: wf, inputs: { zero: 0 } }, { redisUrl });
    const stores = await openStores(db);
    const store = stores.runs;
    await waitFor(async () => (await store.committed(runId)).size >= 3, 60_000, "first commits");
    const committedBefore = [...(await store.committed(runId)).keys()];
    // SIGKILL the worker that took the run (its log says so); a fresh worker must take over.
    const holder = workers.find((w) => w.p.exitCode === null && w.log().includes(`run ${runId} started`));
    expect(holder, "a worker reported the run").toBeDefined();
    holder!.p.kill("SIGKILL");
    const fresh = startWorker("w4");
    await fresh.ready;
    await waitFor(async () => (await store.getRun(runId))?.status === "succeeded", 60_000, "takeover");
    expect((await store.getRun(runId))?.outputs).toEqual({ total: 21 });
    const attempts = await store.attempts(runId);
    for (const key of committedBefore) expect(attempts.filter((a) => a.key === key)).toHaveLength(1);
    // at most the node in flight at the kill ran twice
    const counts = new Map<string, number>();
    for (const a of attempts) counts.set(a.key, (counts.get(a.key) ?? 0) + 1);
    expect([...counts.values()].filter((c) => c > 1).length).toBeLessThanOrEqual(1);
    const taker = workers.find((w) => w.p.exitCode === null && w.log().includes(`run ${runId} resumed`));
    expect(taker, "another worker resumed the run").toBeDefined();
    await stores.close();
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
      await startWorker("h1").ready;
      const alive = workers.filter((w) => w.p.exitCode === null && w.p.signalCode === null);
      const runId = await submitRun({ workflow: flow(24), inputs: {} }, { redisUrl });
      await waitFor(async () => (await stores.runs.getRun(runId))?.status === "paused", 60_000, "the pause");
      const holder = alive.find((w) => w.log().includes(`run ${runId} started`))!;
      expect(holder, "a worker reported the run").toBeDefined();
      holder.p.kill("SIGKILL");
      const fresh = startWorker("h2");
      await fresh.ready;
      const [form] = await stores.forms.runForms(runId);
      await submitForm(stores.forms, form!.id, { action: "yes", inputs: {} }, Date.now());
      const done = await enqueueResume(runId, { db, redisUrl });
      expect(done).toMatchObject({ status: "succeeded", outputs: { out: "shipped v1" } });
      expect((await stores.runs.attempts(runId)).filter((a) => a.nodeId === "draft")).toHaveLength(1);
      expect(holder.log()).not.toContain(`run ${runId} resumed`);

      // Nobody answers: the delayed resume job takes the timeout path (0.0005 h = 1.8 s).
      const late = await submitRun({ workflow: flow(0.0005), inputs: {} }, { redisUrl });
      await waitFor(async () => (await stores.runs.getRun(late))?.status === "succeeded", 60_000, "the timeout");
      expect((await stores.runs.getRun(late))?.outputs).toEqual({ out: "expired" });
    } finally {
      await stores.close();
    }
  }, 120_000);

  it("an evaluation runs on the workers with a fresh tool environment per task and scores as in process", async () => {
    const wf = loadReferenceWorkflow("customer_service");
    const local = await evaluateWorkflowOnDomain(wf, "customer_service", { limit: 12 });
    const queue = await createQueueRunner({ redisUrl });
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
