// Operating triggers: `weft triggers list|enable|disable` (the built CLI), `/api/triggers`, and webhook
// deliveries whose process died between storing the delivery and starting its run.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { importDify } from "../../src/dsl/dify/index.js";
import { openStores } from "../../src/store/open.js";
import { syncAppTriggers } from "../../src/triggers/sync.js";
import { newId } from "../../src/util/ids.js";
import { startTestServer, type TestServer } from "../server/helpers.js";
import { tempDir } from "../support/per-file.js";
import { runWeft } from "../support/weft-bin.js";

const YAML = readFileSync(new URL("../fixtures/dify/triggers/webhook-and-schedule.yml", import.meta.url), "utf8");
const HOOK = "1761000000001";
const SCHED = "1761000000002";

describe("weft triggers (CLI)", () => {
  const db = join(tempDir("triggers-cli"), "weft.db");
  let appId = "";
  const weft = (...args: string[]) => runWeft(args, { tail: ["--db", db] });
  beforeAll(async () => {
    const stores = await openStores(db);
    const wf = importDify(YAML, { nameHint: "both" }).workflow;
    appId = (await stores.apps.createApp({ name: "both", mode: "workflow" }, wf, "import")).app.id;
    await syncAppTriggers(stores, appId);
    await stores.close();
  });

  it("list shows each trigger's URL or next fire time; disable and enable change it; unknown ids are typed errors", () => {
    const listed = weft("triggers", "list", appId, "--json", "--base-url", "https://hooks.example.com/");
    expect(listed.code, listed.err).toBe(0);
    const rows = JSON.parse(listed.out) as Array<Record<string, unknown>>;
    const hook = rows.find((r) => r.type === "webhook")!;
    const sched = rows.find((r) => r.type === "schedule")!;
    expect(hook).toMatchObject({ appId, nodeId: HOOK, enabled: true });
    expect(hook.url).toBe(`https://hooks.example.com/triggers/webhook/${hook.id}`);
    expect(sched).toMatchObject({ appId, nodeId: SCHED, enabled: true, timezone: "Europe/Berlin", cron: "0 8 * * *" });
    // The fixture's schedule is daily at 8:00 AM in Berlin: the next fire is within a day, at 06:00 or 07:00 UTC.
    const next = new Date(String(sched.nextFire)).getTime();
    expect(next - Date.now()).toBeGreaterThan(0);
    expect(next - Date.now()).toBeLessThanOrEqual(24 * 3600_000);
    expect(String(sched.nextFire)).toMatch(/T0[67]:00:00\.000Z$/);

    const text = weft("triggers", "list");
    expect(text.code, text.err).toBe(0);
    expect(text.out).toContain(
      `${hook.id}  webhook  ${appId}  ${HOOK}  http://127.0.0.1:3000/triggers/webhook/${hook.id}  enabled`,
    );
    expect(text.out).toContain(`next ${sched.nextFire}`);

    expect(weft("triggers", "disable", String(sched.id)).out).toBe(`${sched.id} disabled\n`);
    const off = JSON.parse(weft("triggers", "list", appId, "--json").out) as Array<Record<string, unknown>>;
    expect(off.find((r) => r.id === sched.id)).not.toHaveProperty("nextFire");
    expect(off.find((r) => r.id === sched.id)!.enabled).toBe(false);
    expect(weft("triggers", "enable", String(sched.id)).code).toBe(0);

    const unknown = weft("triggers", "disable", "nope");
    expect(unknown.code).toBe(1);
    expect(unknown.err).toContain("no trigger with id nope");
    const noApp = weft("triggers", "list", "no-such-app");
    expect(noApp.code).toBe(1);
    expect(noApp.err).toContain("no app with id no-such-app");
  });
});

describe("/api/triggers and delivery recovery on weft serve", () => {
  let s: TestServer;
  let appId = "";
  let hookId = "";
  beforeAll(async () => {
    s = await startTestServer({ deliveryRecovery: { afterMs: 0, intervalMs: 100 } });
    const res = await s.api("/api/apps/import", { method: "POST", body: YAML });
    expect(res.status).toBe(201);
    appId = (await res.json()).app.id;
    hookId = (await s.deps.stores.triggers.list(appId)).find((t) => t.type === "webhook")!.id;
  });
  afterAll(() => s?.stop());

  it("lists URL on this server, next fire time and the latest deliveries with their runs; enable/disable", async () => {
    const sent = await fetch(`${s.url}/triggers/webhook/${hookId}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "a@b.c", count: 1 }),
    });
    expect(sent.status).toBe(202);
    const res = await s.api(`/api/triggers?app=${appId}&deliveries=5`);
    expect(res.status).toBe(200);
    const { triggers } = await res.json();
    const hook = triggers.find((t: { type: string }) => t.type === "webhook");
    expect(hook.url).toBe(`${s.url}/triggers/webhook/${hookId}`);
    expect(hook.deliveries).toHaveLength(1);
    expect(hook.deliveries[0]).toMatchObject({ status: 202, state: "started", runId: expect.any(String) });
    expect(await s.deps.runs.getRun(hook.deliveries[0].runId)).toBeDefined();
    expect(triggers.find((t: { type: string }) => t.type === "schedule").nextFire).toMatch(/T0[67]:00:00\.000Z$/);

    expect((await s.api(`/api/triggers/${hookId}/disable`, { method: "POST" })).status).toBe(200);
    const off = await fetch(`${s.url}/triggers/webhook/${hookId}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(off.status).toBe(404);
    expect(await (await s.api(`/api/triggers/${hookId}/enable`, { method: "POST" })).json()).toEqual({
      id: hookId,
      enabled: true,
    });
    expect((await s.api("/api/triggers/nope/enable", { method: "POST" })).status).toBe(404);
    expect((await s.api("/api/triggers?deliveries=many")).status).toBe(400);
    expect((await s.api("/api/triggers?app=nope")).status).toBe(404);
  });

  it("a delivery stored as accepted whose process died before its run gets its run, once; one that cannot run is failed", async () => {
    // The inputs a real delivery's run got, as the route stores them with the delivery.
    const sent = await fetch(`${s.url}/triggers/webhook/${hookId}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "late@x.y", count: 3 }),
    });
    expect(sent.status).toBe(202);
    const [real] = await s.deps.stores.triggers.deliveries(hookId, 1);
    const inputs = (await s.deps.runs.getRun(real!.runId))!.inputs;
    // What the route had stored when its process died: the delivery, its reserved run id and the run's inputs.
    const runId = newId();
    await s.deps.stores.triggers.recordDelivery({
      id: newId(),
      triggerId: hookId,
      runId,
      status: 202,
      receivedAt: Date.now() - 60_000,
      state: "accepted",
      payload: inputs,
    });
    await expect.poll(async () => (await s.deps.runs.getRun(runId))?.status, { timeout: 20_000 }).toBe("succeeded");
    expect((await s.deps.runs.getRun(runId))!.outputs).toEqual({ text: "late@x.y x3" });
    const page = await s.deps.stores.runLog.query({ triggerId: hookId });
    expect(page.runs.filter((r) => r.id === runId).map((r) => r.source)).toEqual(["trigger"]);
    await expect.poll(async () => (await s.deps.stores.triggers.acceptedDeliveries(Date.now())).length).toBe(0);

    // A delivery of a trigger that is gone: marked failed with the reason, no run.
    const lostRun = newId();
    await s.deps.stores.triggers.recordDelivery({
      id: "lost-delivery",
      triggerId: "no-such-trigger",
      runId: lostRun,
      status: 202,
      receivedAt: Date.now() - 60_000,
      state: "accepted",
      payload: {},
    });
    await expect
      .poll(async () => (await s.deps.stores.triggers.deliveries("no-such-trigger"))[0]?.state, { timeout: 20_000 })
      .toBe("failed");
    expect((await s.deps.stores.triggers.deliveries("no-such-trigger"))[0]!.error).toContain("trigger.not_found");
    expect(await s.deps.runs.getRun(lostRun)).toBeUndefined();
  });
});
