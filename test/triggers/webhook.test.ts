import { createHmac } from "node:crypto";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { importDify } from "../../src/dsl/dify/index.js";
import { startTestServer, type TestServer } from "../server/helpers.js";

const YAML = readFileSync(new URL("../fixtures/dify/triggers/webhook-and-schedule.yml", import.meta.url), "utf8");
const HOOK = "1761000000001";

describe("webhook triggers on weft serve", () => {
  let s: TestServer;
  let appId = "";
  let hookId = "";
  let signedId = "";
  const url = (id: string, q = "") => `${s.url}/triggers/webhook/${id}${q}`;
  const post = (id: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(url(id), {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
    });
  const counts = async () => ({
    runs: await s.deps.stores.runLog.count({ source: ["trigger"] }),
    deliveries: await s.deps.stores.triggers.countDeliveries(),
  });

  beforeAll(async () => {
    s = await startTestServer({ webhookMaxBodyBytes: 64 * 1024 });
    const res = await s.api("/api/apps/import", { method: "POST", body: YAML });
    expect(res.status).toBe(201);
    appId = (await res.json()).app.id;
    const triggers = await s.deps.stores.triggers.list(appId);
    expect(triggers.map((t) => t.type).sort()).toEqual(["schedule", "webhook"]);
    hookId = triggers.find((t) => t.type === "webhook")!.id;
    expect(hookId).toMatch(/^[A-Za-z0-9]{24}$/);

    // A second app whose webhook checks an HMAC signature with a secret of the app's env.
    const wf = importDify(YAML, { nameHint: "signed" }).workflow;
    wf.nodes.find((n) => n.id === HOOK)!.config.signature = { scheme: "hmac-sha256", secret_env: "HOOK_SECRET" };
    wf.environment_variables.push({ name: "HOOK_SECRET", value_type: "secret", value: "" });
    const made = await s.api("/api/apps", { method: "POST", json: { name: "signed", workflow: wf } });
    const signedApp = (await made.json()).app.id;
    await s.api(`/api/apps/${signedApp}/publish`, { method: "POST", json: { version: 1 } });
    await s.api(`/api/apps/${signedApp}/env/HOOK_SECRET`, { method: "PUT", json: { type: "secret", value: "s3cret" } });
    signedId = (await s.deps.stores.triggers.list(signedApp)).find((t) => t.type === "webhook")!.id;
  });
  afterAll(() => s?.stop());

  it("refusals answer Dify's statuses and store nothing", async () => {
    const before = await counts();
    const cases: Array<[string, Promise<Response>, number, string]> = [
      [
        "wrong method",
        fetch(url(hookId), { method: "PUT", headers: { "content-type": "application/json" }, body: "{}" }),
        400,
        "HTTP method mismatch",
      ],
      [
        "wrong content type",
        fetch(url(hookId), { method: "POST", headers: { "content-type": "text/plain" }, body: "x" }),
        400,
        "Content-type mismatch",
      ],
      [
        "malformed body",
        fetch(url(hookId), { method: "POST", headers: { "content-type": "application/json" }, body: "{nope" }),
        400,
        "not valid JSON",
      ],
      ["missing required", post(hookId, { count: 1 }), 400, 'required body parameter "email"'],
      ["wrong type", post(hookId, { email: "a@b.c", count: "many" }), 400, 'body parameter "count" must be number'],
      ["oversize", post(hookId, { email: "x".repeat(70 * 1024) }), 413, "larger than"],
      ["unknown id", post("A".repeat(24), { email: "a@b.c" }), 404, "no enabled webhook"],
      ["no signature", post(signedId, { email: "a@b.c" }), 401, "header is missing"],
      ["bad signature", post(signedId, { email: "a@b.c" }, { "x-signature-256": "sha256=00" }), 401, "does not match"],
    ];
    for (const [what, p, status, text] of cases) {
      const res = await p;
      expect(res.status, what).toBe(status);
      expect((await res.json()).error.message, what).toContain(text);
    }
    expect(await counts()).toEqual(before);
  });

  it("a good signature, query and header reach the run; the answer is the node's status and body at once", async () => {
    const body = JSON.stringify({ email: "signed@x.y", count: 2 });
    const sig = createHmac("sha256", "s3cret").update(body).digest("hex");
    const res = await fetch(url(signedId, "?source=crm"), {
      method: "POST",
      headers: { "content-type": "application/json", "x-signature-256": `sha256=${sig}`, "X-Request-Id": "req-7" },
      body,
    });
    expect(res.status).toBe(202);
    expect(await res.json()).toEqual({ ok: true });
    const [d] = await s.deps.stores.triggers.deliveries(signedId);
    await expect.poll(async () => (await s.deps.runs.getRun(d!.runId))?.status, { timeout: 15_000 }).toBe("succeeded");
    const run = await s.deps.runs.getRun(d!.runId);
    expect(run!.outputs).toEqual({ text: "signed@x.y x2" });
    const hook = (await s.deps.runs.attempts(d!.runId)).find((a) => a.nodeId === HOOK)!;
    expect(hook.outputs).toMatchObject({ X_Request_Id: "req-7", source: "crm", email: "signed@x.y" });
    const page = await s.deps.stores.runLog.query({ triggerId: signedId });
    expect(page.runs.map((r) => [r.id, r.source, r.triggerId])).toEqual([[d!.runId, "trigger", signedId]]);
  });

  it("disabled → 404 with nothing stored; enabled again → runs", async () => {
    await s.deps.stores.triggers.setEnabled(hookId, false);
    const before = await counts();
    expect((await post(hookId, { email: "off@x.y" })).status).toBe(404);
    expect(await counts()).toEqual(before);
    await s.deps.stores.triggers.setEnabled(hookId, true);
  });

  it("1,000 deliveries (bounded, 16 at once) → 1,000 runs, none lost or doubled; 200 key repeats start none", async () => {
    const before = await counts();
    const N = 1000;
    const send = async (i: number) => {
      const res = await post(hookId, { email: `user${i}@load.test`, count: i }, { "idempotency-key": `k-${i}` });
      expect(res.status).toBe(202);
      await res.arrayBuffer();
    };
    const pool = async (items: number[]) => {
      let next = 0;
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          while (next < items.length) await send(items[next++]!);
        }),
      );
    };
    await pool(Array.from({ length: N }, (_, i) => i));
    await pool(Array.from({ length: 200 }, (_, i) => i * 5));
    const after = await counts();
    expect(after.deliveries - before.deliveries).toBe(N);
    expect(after.runs - before.runs).toBe(N);
    await expect
      .poll(async () => s.deps.stores.runLog.count({ appId, source: ["trigger"], status: ["succeeded"] }), {
        timeout: 120_000,
      })
      .toBe(N);
    const texts = new Set<string>();
    let cursor: string | undefined;
    do {
      const page = await s.deps.stores.runLog.query({ appId, triggerId: hookId, limit: 100, cursor });
      for (const r of page.runs) texts.add(String(r.outputs?.text));
      cursor = page.next;
    } while (cursor);
    expect(texts.size).toBe(N);
    for (let i = 0; i < N; i++) expect(texts.has(`user${i}@load.test x${i}`)).toBe(true);
  }, 240_000);
});
