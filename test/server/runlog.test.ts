/**
 * Run logs end to end: runs started from the studio and from Dify's /v1 are filed by source and version, found by
 * status and full-text search, paged by cursor, listed by Dify's GET /v1/workflows/logs in Dify's shape and by
 * `weft runs` on the same database; retention prunes beyond the per-app limit.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exportDify } from "../../src/dsl/dify/index.js";
import type { Workflow } from "../../src/ir/workflow.js";
import { buildWorkflow, tpl } from "../support/build.js";
import { runWeftAsync } from "../support/weft-bin.js";
import { readSse, startTestServer, type TestServer } from "./helpers.js";

const echo: Workflow = {
  ...buildWorkflow({
    nodes: [
      {
        id: "begin",
        type: "start",
        variables: [{ variable: "word", label: "Word", type: "text-input", required: true }],
      },
      tpl("say", "heard {{ w }}", { w: ["begin", "word"] }),
      {
        id: "end",
        type: "end",
        outputs: [{ variable: "said", value_selector: ["say", "output"], value_type: "string" }],
      },
    ],
    edges: [
      ["begin", "say"],
      ["say", "end"],
    ],
  }),
  name: "echo",
};

// The CLI must not block this process: the server under test lives in it.
const weft = (args: string[]) => runWeftAsync(args);

let s: TestServer;
let appId: string;
let appKey: string;
const ran: Record<string, string> = {};

async function body(res: Response, status = 200): Promise<any> {
  const b = await res.json();
  expect(res.status, JSON.stringify(b)).toBe(status);
  return b;
}

beforeAll(async () => {
  s = await startTestServer({ retention: { maxRunsPerApp: 2 }, retentionIntervalMs: 3_600_000 });
  const imported = await body(
    await s.api("/api/apps/import", {
      method: "POST",
      body: exportDify(echo),
      headers: { "content-type": "text/yaml" },
    }),
    201,
  );
  appId = imported.app.id;
  appKey = (await s.deps.stores.service.createAppKey(appId)).key;
  const started = await body(
    await s.api(`/api/apps/${appId}/runs`, {
      method: "POST",
      json: { inputs: { word: "alpha" } },
      headers: { "x-weft-client": "studio" },
    }),
    202,
  );
  await readSse(await s.api(`/api/runs/${started.runId}/events`));
  ran.studio = started.runId;
  const v1 = await fetch(`${s.url}/v1/workflows/run`, {
    method: "POST",
    headers: { authorization: `Bearer ${appKey}`, "content-type": "application/json" },
    body: JSON.stringify({ inputs: { word: "beta" }, response_mode: "blocking", user: "u1" }),
  });
  ran.v1 = (await body(v1)).workflow_run_id;
});
afterAll(async () => s.stop());

describe("run logs", () => {
  it("filters by source, status and search; entries carry version, source and a deep link", async () => {
    const all = await body(await s.api(`/api/apps/${appId}/runs`));
    expect(all.runs.map((r: any) => r.id)).toEqual([ran.v1, ran.studio]);
    const studio = await body(await s.api(`/api/apps/${appId}/runs?source=studio`));
    expect(studio.runs).toHaveLength(1);
    expect(studio.runs[0]).toMatchObject({
      id: ran.studio,
      source: "studio",
      version: 1,
      draft: true,
      status: "succeeded",
      link: `/apps/${appId}/runs/${ran.studio}`,
    });
    const found = await body(await s.api(`/api/runs?search=${encodeURIComponent("heard beta")}&status=succeeded`));
    expect(found.runs.map((r: any) => [r.id, r.source])).toEqual([[ran.v1, "v1"]]);
    expect(found.runs[0].outputs).toEqual({ said: "heard beta" });
    expect((await body(await s.api(`/api/apps/${appId}/runs?status=failed,cancelled`))).runs).toEqual([]);

    const first = await body(await s.api(`/api/apps/${appId}/runs?limit=1`));
    expect(first.runs.map((r: any) => r.id)).toEqual([ran.v1]);
    const second = await body(await s.api(`/api/apps/${appId}/runs?limit=1&cursor=${first.next}`));
    expect(second).toMatchObject({ runs: [{ id: ran.studio }], next: null });
  });

  it("bad filters are typed errors naming the value", async () => {
    const bad = await body(await s.api(`/api/runs?status=done`), 422);
    expect(bad.error).toMatchObject({ code: "runs.invalid_status" });
    expect(bad.error.message).toContain('"done"');
    expect((await body(await s.api(`/api/runs?since=yesterday`), 422)).error.code).toBe("runs.invalid_time");
    expect((await body(await s.api(`/api/runs?cursor=zzz`), 422)).error.code).toBe("runs.invalid_cursor");
    expect((await body(await s.api(`/api/apps/NOPE/runs`), 404)).error.code).toBe("app.not_found");
  });

  it("GET /v1/workflows/logs answers in Dify's shape, with keyword, status and pages", async () => {
    const get = async (q: string, status = 200) =>
      body(await fetch(`${s.url}/v1/workflows/logs${q}`, { headers: { authorization: `Bearer ${appKey}` } }), status);
    const page1 = await get("?limit=1");
    expect(page1).toMatchObject({ page: 1, limit: 1, total: 2, has_more: true });
    expect(page1.data[0]).toMatchObject({
      id: ran.v1,
      workflow_run: { id: ran.v1, version: "1", status: "succeeded", error: null, total_steps: 3, exceptions_count: 0 },
      created_from: "service-api",
      created_by_role: "end_user",
      created_by_end_user: { session_id: "u1" },
    });
    expect(typeof page1.data[0].workflow_run.created_at).toBe("number");
    const page2 = await get("?limit=1&page=2");
    expect(page2).toMatchObject({ page: 2, total: 2, has_more: false, data: [{ id: ran.studio }] });
    expect(page2.data[0].created_by_end_user).toBeNull();
    expect((await get("?keyword=alpha")).data.map((d: any) => d.id)).toEqual([ran.studio]);
    expect(await get("?page=3&limit=1")).toMatchObject({ total: 2, data: [] });
    expect((await get("?status=stopped")).total).toBe(0);
    expect((await get("?status=nope", 400)).code).toBe("invalid_param");
  });

  it("`weft runs --app --status --search --json` lists the same runs from the database", async () => {
    const r = await weft([
      "runs",
      "--db",
      join(s.dir, "weft.db"),
      "--app",
      appId,
      "--status",
      "succeeded",
      "--search",
      "alpha",
      "--json",
    ]);
    expect(r.code, r.err).toBe(0);
    const out = JSON.parse(r.out);
    expect(out.runs.map((x: any) => [x.id, x.source, x.link])).toEqual([
      [ran.studio, "studio", `/apps/${appId}/runs/${ran.studio}`],
    ]);
    expect(out.next).toBeNull();
    const bad = await weft(["runs", "--db", join(s.dir, "weft.db"), "--since", "soon"]);
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/^error runs\.invalid_duration|^error runs\.invalid_time/);
  });

  it("retention keeps each app's newest runs and never a paused one", async () => {
    const { app } = await s.deps.apps.createApp({ name: "kept", mode: "workflow" }, echo, "create");
    const now = Date.now();
    for (const [i, status] of (["succeeded", "paused", "failed", "succeeded"] as const).entries())
      await s.deps.runs.createRun({
        id: `old-${i}-${app.id}`,
        workflow: echo,
        inputs: {},
        status,
        appId: app.id,
        createdAt: now - (10 - i) * 1000,
        updatedAt: now,
      });
    expect(await s.pruner.runOnce()).toBe(1);
    const left = (await body(await s.api(`/api/apps/${app.id}/runs`))).runs.map((r: any) => r.id);
    expect(left).toEqual([`old-3-${app.id}`, `old-2-${app.id}`, `old-1-${app.id}`]);
  });
});
