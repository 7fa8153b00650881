// Two `weft serve` processes on one PostgreSQL database serve the same apps, keys and runs: a run started on
// one streams live from the other (followed from the database) and replays from a Last-Event-ID on either.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildWorkflow } from "../support/build.js";
import { hasPostgres, type PgCluster, startPostgres } from "../support/postgres.js";
import { readSse, type SampleServer, type SseMessage, serveSample } from "./helpers.js";

const step = (id: string, from: string[]) => ({
  id,
  type: "code",
  code_language: "python3",
  code: `import time\ndef main(x):\n    time.sleep(0.3)\n    return {"v": str(x) + "${id}"}`,
  variables: [{ variable: "x", value_selector: from }],
  outputs: { v: { type: "string", children: null } },
});
const slow = buildWorkflow({
  nodes: [
    { id: "start", type: "start", variables: [{ variable: "x", type: "text-input" }] },
    step("p", ["start", "x"]),
    step("q", ["p", "v"]),
    step("r", ["q", "v"]),
    { id: "end", type: "end", outputs: [{ variable: "out", value_selector: ["r", "v"] }] },
  ],
  edges: [
    ["start", "p"],
    ["p", "q"],
    ["q", "r"],
    ["r", "end"],
  ],
});

describe.skipIf(!hasPostgres && !process.env.CI)("two servers on one PostgreSQL database", () => {
  let cluster: PgCluster;
  const dir = mkdtempSync(join(tmpdir(), "weft-two-servers-"));
  const servers: SampleServer[] = [];
  beforeAll(async () => {
    cluster = await startPostgres();
  }, 120_000);
  afterAll(async () => {
    for (const s of servers) await s.stop();
    await cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it("serve the same apps, keys and runs; a run on one streams from the other and replays on both", async () => {
    const db = await cluster.createDatabase();
    const a = await serveSample(db, dir);
    servers.push(a);
    const b = await serveSample(db, dir);
    servers.push(b);
    // One sample app and one key for both: the second server found them in the database.
    expect(b.key).toBe(a.key);
    expect(b.out).toContain("the same key as before");
    const call = (s: SampleServer, path: string, init: RequestInit & { json?: unknown } = {}) =>
      fetch(`${s.url}${path}`, {
        ...init,
        headers: {
          authorization: `Bearer ${a.key}`,
          ...(init.json !== undefined && { "content-type": "application/json" }),
          ...(init.headers as Record<string, string>),
        },
        body: init.json !== undefined ? JSON.stringify(init.json) : init.body,
      });
    const names = async (s: SampleServer) =>
      ((await (await call(s, "/api/apps")).json()) as { apps: Array<{ name: string }> }).apps.map((x) => x.name);
    expect(await names(b)).toEqual(["Word statistics"]);

    const created = await call(a, "/api/apps", { method: "POST", json: { name: "Slow chain", workflow: slow } });
    expect(created.status).toBe(201);
    const appId = ((await created.json()) as { app: { id: string } }).app.id;
    expect(await names(b)).toEqual(["Slow chain", "Word statistics"]);

    const started = await call(a, `/api/apps/${appId}/runs`, { method: "POST", json: { inputs: { x: "go:" } } });
    expect(started.status).toBe(202);
    const { runId } = (await started.json()) as { runId: string };
    // Live from the other server: its stream follows the run to its end.
    const fromB = await readSse(await call(b, `/api/runs/${runId}/events`));
    expect(fromB.at(-1)?.data).toMatchObject({ type: "run_finished", status: "succeeded", outputs: { out: "go:pqr" } });
    expect(fromB.map((m) => m.id)).toEqual(fromB.map((_, i) => String(i)));
    const finishedNodes = fromB.filter((m) => m.event === "node_finished").map((m) => m.data.nodeId);
    expect(finishedNodes).toEqual(["start", "p", "q", "r", "end"]);

    const fromA = await readSse(await call(a, `/api/runs/${runId}/events`));
    const strip = (ms: SseMessage[]) => ms.map((m) => [m.id, m.event, m.data]);
    expect(strip(fromA)).toEqual(strip(fromB));
    // Last-Event-ID replay on either server gives the same tail.
    const tail = (s: SampleServer) => call(s, `/api/runs/${runId}/events`, { headers: { "last-event-id": "2" } });
    const tailA = await readSse(await tail(a));
    expect(tailA[0]?.id).toBe("3");
    expect(strip(await readSse(await tail(b)))).toEqual(strip(tailA));

    const run = (await (await call(b, `/api/runs/${runId}`)).json()) as { status: string; outputs: unknown };
    expect(run).toMatchObject({ status: "succeeded", outputs: { out: "go:pqr" } });
    const listed = (await (await call(b, `/api/apps/${appId}/runs`)).json()) as { runs: Array<{ id: string }> };
    expect(listed.runs.map((r) => r.id)).toEqual([runId]);

    // A version saved on one server is the current one on the other.
    const renamed = { ...slow, name: "Slow chain v2" };
    const saved = await call(b, `/api/apps/${appId}/workflow`, { method: "PUT", json: { workflow: renamed } });
    expect(saved.status, await saved.clone().text()).toBeLessThan(300);
    const current = (await (await call(a, `/api/apps/${appId}`)).json()) as { version: { version: number } };
    expect(current.version.version).toBe(2);
  }, 180_000);
});
