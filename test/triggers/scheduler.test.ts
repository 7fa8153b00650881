// The scheduler against real stores with a fake clock: ticks fire once across schedulers and restarts, missed
// ticks follow the policy, disabled triggers and republished schedules take effect.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Workflow } from "../../src/ir/workflow.js";
import { openStores, type Stores } from "../../src/store/open.js";
import { createScheduleRunner } from "../../src/triggers/schedule/runner.js";
import type { TriggerRunStarter } from "../../src/triggers/start-run.js";

const T0 = Date.parse("2026-05-01T10:00:00Z");

function scheduled(config: Record<string, unknown>): Workflow {
  return {
    weft: 1,
    name: "every minute",
    description: "",
    mode: "workflow",
    nodes: [
      { id: "sched", type: "trigger-schedule", title: "Schedule", config },
      { id: "end", type: "end", title: "End", config: { outputs: [] } },
    ],
    edges: [{ source: "sched", sourcePort: "source", target: "end" }],
    environment_variables: [],
    conversation_variables: [],
  };
}

/** Records every run started, as the server's hub or the queue would start it. */
function recorder() {
  const runs: Array<{ runId: string; appId: string; inputs: Record<string, unknown> }> = [];
  const starter: TriggerRunStarter = {
    async start(_wf, o) {
      runs.push({ runId: o.runId, appId: o.appId, inputs: o.inputs });
      return { runId: o.runId };
    },
  };
  return { runs, starter };
}

const dirs: string[] = [];
const open: Stores[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function sqlite(path?: string): Promise<{ stores: Stores; path: string }> {
  const p = path ?? join(mkdtempSync(join(tmpdir(), "weft-sched-")), "weft.db");
  if (!path) dirs.push(join(p, ".."));
  const stores = await openStores(p);
  open.push(stores);
  return { stores, path: p };
}

/** The schedule store with every call's name recorded. */
function countingSchedules(store: Stores["schedules"], calls: string[]): Stores["schedules"] {
  return new Proxy(store, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver);
      if (typeof v !== "function") return v;
      return (...args: unknown[]) => {
        calls.push(String(prop));
        return v.apply(target, args);
      };
    },
  });
}

const minuteCron = (policy?: string) => ({
  mode: "cron",
  cron_expression: "* * * * *",
  timezone: "UTC",
  ...(policy ? { missed_ticks: policy } : {}),
});

describe("scheduler (fake clock, SQLite)", () => {
  it("two schedulers on one database fire each tick once; a draft never fires", async () => {
    const { stores, path } = await sqlite();
    const { stores: other } = await sqlite(path);
    const { app } = await stores.apps.createApp({ name: "s", mode: "workflow" }, scheduled(minuteCron()), "import");
    const { app: unpublished } = await stores.apps.createApp(
      { name: "draft", mode: "workflow" },
      scheduled(minuteCron()),
      "import",
      { publish: false },
    );
    let now = T0 + 500;
    const rec = recorder();
    const a = createScheduleRunner({ stores, starter: rec.starter, now: () => now });
    const b = createScheduleRunner({ stores: other, starter: rec.starter, now: () => now });
    await a.pollOnce();
    await b.pollOnce();
    for (let i = 1; i <= 5; i++) {
      now = T0 + i * 60_000 + 300;
      await Promise.all([a.pollOnce(), b.pollOnce(), a.pollOnce()]);
    }
    expect(rec.runs.map((r) => r.appId)).toEqual(Array(5).fill(app.id));
    expect(rec.runs.every((r) => r.appId !== unpublished.id)).toBe(true);
    expect(new Set(rec.runs.map((r) => r.runId)).size).toBe(5);
    expect(rec.runs[0]!.inputs).toEqual({ current_time: "2026-05-01T10:01:00+00:00", timezone: "UTC" });
    // Tagged as trigger runs with the trigger id of the app's schedule row.
    const [row] = (await stores.triggers.list(app.id)).filter((t) => t.type === "schedule");
    expect((await stores.schedules.fires(row!.id, 10)).map((f) => f.tick - T0)).toEqual(
      [5, 4, 3, 2, 1].map((i) => i * 60_000),
    );
  });

  it("restart across ticks: run_once starts one run for the missed ticks, skip none; no tick fires twice", async () => {
    for (const [policy, expected] of [
      ["run_once", 1],
      ["skip", 0],
    ] as const) {
      const { stores, path } = await sqlite();
      await stores.apps.createApp({ name: policy, mode: "workflow" }, scheduled(minuteCron(policy)), "import");
      let now = T0 + 500;
      const rec = recorder();
      await createScheduleRunner({ stores, starter: rec.starter, now: () => now }).pollOnce();
      now = T0 + 60_000 + 200;
      await createScheduleRunner({ stores, starter: rec.starter, now: () => now }).pollOnce();
      expect(rec.runs).toHaveLength(1);
      await stores.close();
      open.splice(open.indexOf(stores), 1);
      // Down across three ticks; a new process on the same file, 40 s after the last of them.
      const { stores: again } = await sqlite(path);
      now = T0 + 4 * 60_000 + 40_000;
      const restarted = createScheduleRunner({ stores: again, starter: rec.starter, now: () => now });
      const report = await restarted.pollOnce();
      expect(rec.runs, policy).toHaveLength(1 + expected);
      expect(report.fired.length + report.skipped.length).toBe(1);
      await restarted.pollOnce();
      expect(rec.runs, policy).toHaveLength(1 + expected);
      // The next tick is on time again under either policy.
      now = T0 + 5 * 60_000 + 100;
      await restarted.pollOnce();
      expect(rec.runs, policy).toHaveLength(2 + expected);
    }
  });

  it("a disabled trigger does not fire and starts no catch-up when enabled again; a republish takes effect", async () => {
    const { stores } = await sqlite();
    const { app } = await stores.apps.createApp({ name: "s", mode: "workflow" }, scheduled(minuteCron()), "import");
    let now = T0 + 500;
    const rec = recorder();
    const s = createScheduleRunner({ stores, starter: rec.starter, now: () => now });
    await s.pollOnce();
    const [row] = await stores.triggers.list(app.id);
    await stores.triggers.setEnabled(row!.id, false);
    for (let i = 1; i <= 3; i++) {
      now = T0 + i * 60_000 + 100;
      await s.pollOnce();
    }
    expect(rec.runs).toHaveLength(0);
    await stores.triggers.setEnabled(row!.id, true);
    now = T0 + 3 * 60_000 + 30_000;
    await s.pollOnce();
    expect(rec.runs).toHaveLength(0);
    now = T0 + 4 * 60_000 + 100;
    await s.pollOnce();
    expect(rec.runs).toHaveLength(1);
    // Republished as hourly at :30: the minute ticks stop, the next fire is 10:30.
    const v2 = await stores.apps.addVersion(
      app.id,
      scheduled({ mode: "visual", frequency: "hourly", visual_config: { on_minute: 30 } }),
      "edit",
    );
    await stores.apps.publish(app.id, v2.version);
    for (const m of [5, 6, 29]) {
      now = T0 + m * 60_000 + 100;
      await s.pollOnce();
    }
    expect(rec.runs).toHaveLength(1);
    now = T0 + 30 * 60_000 + 100;
    await s.pollOnce();
    expect(rec.runs).toHaveLength(2);
    // Republished without a schedule: its bookkeeping goes, nothing fires.
    const v3 = await stores.apps.addVersion(app.id, { ...scheduled({}), nodes: [], edges: [] }, "edit");
    await stores.apps.publish(app.id, v3.version);
    now = T0 + 90 * 60_000 + 100;
    await s.pollOnce();
    expect(rec.runs).toHaveLength(2);
    expect(await stores.schedules.list()).toEqual([]);
  });

  it("a tick claimed by a scheduler that died before starting its run is started by another, once", async () => {
    const { stores } = await sqlite();
    await stores.apps.createApp({ name: "s", mode: "workflow" }, scheduled(minuteCron()), "import");
    let now = T0 + 500;
    const dead: TriggerRunStarter = {
      start: () => Promise.reject(new Error("process killed between the claim and the run")),
    };
    const first = createScheduleRunner({ stores, starter: dead, now: () => now, log: () => {} });
    await first.pollOnce();
    now = T0 + 60_000 + 100;
    const r1 = await first.pollOnce();
    expect(r1.fired).toHaveLength(1);
    const rec = recorder();
    const second = createScheduleRunner({ stores, starter: rec.starter, now: () => now });
    now = T0 + 60_000 + 31_000;
    const r2 = await second.pollOnce();
    expect(r2.redispatched.map((r) => r.runId)).toEqual([r1.fired[0]!.runId]);
    expect(rec.runs.map((r) => r.runId)).toEqual([r1.fired[0]!.runId]);
    await second.pollOnce();
    expect(rec.runs).toHaveLength(1);
  });

  it("stop() during a poll claims nothing more: the next due schedule is left to the schedulers still running", async () => {
    const { stores } = await sqlite();
    await stores.apps.createApp({ name: "a", mode: "workflow" }, scheduled(minuteCron()), "import");
    await stores.apps.createApp({ name: "b", mode: "workflow" }, scheduled(minuteCron()), "import");
    let now = T0 + 500;
    let release!: () => void;
    let entered!: () => void;
    const inDispatch = new Promise<void>((r) => {
      entered = r;
    });
    const started: string[] = [];
    const blocking: TriggerRunStarter = {
      async start(_wf, o) {
        started.push(o.runId);
        entered();
        await new Promise<void>((r) => {
          release = r;
        });
        return { runId: o.runId };
      },
    };
    const s = createScheduleRunner({ stores, starter: blocking, now: () => now, pollMs: 60_000 });
    await s.pollOnce();
    now = T0 + 60_000 + 100;
    s.start();
    await inDispatch;
    const stopped = s.stop();
    release();
    await stopped;
    // The first schedule's claimed tick was dispatched; the second's tick was not claimed by the stopping one.
    expect(started).toHaveLength(1);
    const fires = await Promise.all((await stores.schedules.list()).map((st) => stores.schedules.fires(st.key, 5)));
    expect(fires.map((f) => f.length).sort()).toEqual([0, 1]);
    expect(fires.flat()[0]!.dispatchedAt).toBeDefined();
    // Another scheduler still running fires the tick the stopped one left.
    const rec = recorder();
    const other = createScheduleRunner({ stores, starter: rec.starter, now: () => now });
    await other.pollOnce();
    expect(rec.runs).toHaveLength(1);
  });
  it("between ticks a poll asks the store nothing per schedule; at the tick it fires, once", async () => {
    const { stores } = await sqlite();
    for (const name of ["a", "b", "c"])
      await stores.apps.createApp({ name, mode: "workflow" }, scheduled(minuteCron()), "import");
    const calls: string[] = [];
    const counted = countingSchedules(stores.schedules, calls);
    let now = T0 + 500;
    const rec = recorder();
    const s = createScheduleRunner({ stores: { ...stores, schedules: counted }, starter: rec.starter, now: () => now });
    await s.pollOnce();
    calls.length = 0;
    for (const ms of [1_000, 2_000, 3_000, 59_000]) {
      now = T0 + ms;
      await s.pollOnce();
    }
    // No sync/get/advance between ticks; the sweep (dead claimers, removed schedules) at most every 5 s.
    expect(calls.filter((c) => c === "sync" || c === "get" || c === "advance")).toEqual([]);
    expect(calls.filter((c) => c === "undispatched")).toHaveLength(1);
    now = T0 + 60_000 + 100;
    await s.pollOnce();
    expect(rec.runs).toHaveLength(3);
    now = T0 + 61_000;
    await s.pollOnce();
    expect(rec.runs).toHaveLength(3);
  });

  it("a claim that failed is tried again at the next poll, not at the next tick", async () => {
    const { stores } = await sqlite();
    await stores.apps.createApp({ name: "a", mode: "workflow" }, scheduled(minuteCron()), "import");
    let failAdvance = false;
    const flaky = new Proxy(stores.schedules, {
      get(target, prop, receiver) {
        const v = Reflect.get(target, prop, receiver);
        if (prop === "advance" && failAdvance) return () => Promise.reject(new Error("database away"));
        return typeof v === "function" ? v.bind(target) : v;
      },
    });
    let now = T0 + 500;
    const rec = recorder();
    const s = createScheduleRunner({
      stores: { ...stores, schedules: flaky },
      starter: rec.starter,
      now: () => now,
      log: () => {},
    });
    await s.pollOnce();
    failAdvance = true;
    now = T0 + 60_000 + 100;
    expect((await s.pollOnce()).failed).toHaveLength(1);
    failAdvance = false;
    now = T0 + 61_000;
    await s.pollOnce();
    expect(rec.runs).toHaveLength(1);
  });

  it("a schedule whose trigger is disabled between ticks stops firing at once; republished, its new time holds", async () => {
    const { stores } = await sqlite();
    const { app } = await stores.apps.createApp({ name: "s", mode: "workflow" }, scheduled(minuteCron()), "import");
    let now = T0 + 500;
    const rec = recorder();
    const s = createScheduleRunner({ stores, starter: rec.starter, now: () => now });
    await s.pollOnce();
    now = T0 + 10_000;
    await s.pollOnce(); // remembered: nothing due before 10:01
    const [row] = await stores.triggers.list(app.id);
    await stores.triggers.setEnabled(row!.id, false);
    now = T0 + 60_000 + 100;
    await s.pollOnce();
    expect(rec.runs).toHaveLength(0);
    await stores.triggers.setEnabled(row!.id, true);
    const v2 = await stores.apps.addVersion(
      app.id,
      scheduled({ mode: "cron", cron_expression: "*/2 * * * *", timezone: "UTC" }),
      "edit",
    );
    await stores.apps.publish(app.id, v2.version);
    now = T0 + 3 * 60_000 + 100;
    await s.pollOnce();
    expect(rec.runs).toHaveLength(0); // 10:03 is no tick of */2
    now = T0 + 4 * 60_000 + 100;
    await s.pollOnce();
    expect(rec.runs).toHaveLength(1);
  });
});
