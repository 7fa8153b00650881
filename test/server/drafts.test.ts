/**
 * Drafts and publishing over HTTP: the draft keeps every save (errors included) and is what the studio's Run
 * runs; `/v1` and MCP run only the published version; publishing refuses a draft with errors; rollback is
 * publishing an older version; a stale save is refused with the current draft.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exportDify } from "../../src/dsl/dify/index.js";
import type { Workflow } from "../../src/ir/workflow.js";
import { buildWorkflow, tpl } from "../support/build.js";
import { readSse, startTestServer, type TestServer } from "./helpers.js";

/** Start → template "say" → End; the output tells which version ran. */
const saying = (words: string): Workflow => ({
  ...buildWorkflow({
    nodes: [
      {
        id: "begin",
        type: "start",
        variables: [{ variable: "who", label: "Who", type: "text-input", required: true }],
      },
      tpl("say", `${words} {{ who }}`, { who: ["begin", "who"] }),
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
  name: "greeter",
});
/** "say" reads a node that does not exist: an analyser error, still a workflow. */
const broken = (): Workflow => {
  const wf = saying("broken");
  const say = wf.nodes.find((n) => n.id === "say")!;
  (say.config as { variables: unknown[] }).variables = [{ variable: "who", value_selector: ["nowhere", "x"] }];
  return wf;
};

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => s.stop());

async function json(res: Response, status: number): Promise<any> {
  const body = await res.json();
  expect(res.status, JSON.stringify(body)).toBe(status);
  return body;
}

async function importApp(wf: Workflow): Promise<{ id: string; body: any }> {
  const body = await json(
    await s.api("/api/apps/import", { method: "POST", body: exportDify(wf), headers: { "content-type": "text/yaml" } }),
    201,
  );
  return { id: body.app.id, body };
}

async function v1Run(appId: string): Promise<any> {
  const { key } = await s.deps.stores.service.createAppKey(appId);
  const res = await fetch(`${s.url}/v1/workflows/run`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ inputs: { who: "Ada" }, response_mode: "blocking", user: "u1" }),
  });
  return { status: res.status, body: await res.json() };
}

async function studioRun(appId: string): Promise<string> {
  const started = await json(
    await s.api(`/api/apps/${appId}/runs`, { method: "POST", json: { inputs: { who: "Ada" } } }),
    202,
  );
  await readSse(await s.api(`/api/runs/${started.runId}/events`));
  const run = await json(await s.api(`/api/runs/${started.runId}`), 200);
  return run.outputs.said;
}

const saveDraft = (id: string, workflow: unknown, revision?: number) =>
  s.api(`/api/apps/${id}/draft`, {
    method: "PUT",
    json: { workflow, ...(revision !== undefined ? { revision } : {}) },
  });

describe("drafts and publishing", () => {
  it("a draft with errors is saved and kept; publishing it is refused; /v1 keeps running the published version", async () => {
    const { id, body } = await importApp(saying("hello"));
    expect(body.app.publishedVersion).toBe(1);
    const draft = await json(await saveDraft(id, broken(), 1), 200);
    expect(draft).toMatchObject({ revision: 2, baseVersion: 1, dirty: true });
    expect(draft.diagnostics.some((d: any) => d.severity === "error" && d.nodeId === "say")).toBe(true);

    const again = await json(await s.api(`/api/apps/${id}/draft`), 200);
    expect(again.workflow).toEqual(draft.workflow);
    expect(again.diagnostics).toEqual(draft.diagnostics);

    const refused = await json(await s.api(`/api/apps/${id}/publish`, { method: "POST", json: {} }), 422);
    expect(refused.error.code).toBe("publish.invalid");
    expect(refused.error.diagnostics.some((d: any) => d.nodeId === "say")).toBe(true);
    expect((await json(await s.api(`/api/apps/${id}`), 200)).app.publishedVersion).toBe(1);
    const studio = await json(
      await s.api(`/api/apps/${id}/runs`, { method: "POST", json: { inputs: { who: "Ada" } } }),
      422,
    );
    expect(studio.error.code).toBe("run.invalid_workflow");

    const live = await v1Run(id);
    expect(live.status).toBe(200);
    expect(live.body.data.outputs).toEqual({ said: "hello Ada" });
  });

  it("publishing the fixed draft makes a version /v1 and MCP run, while the studio runs a later draft edit", async () => {
    const { id } = await importApp(saying("hello"));
    await json(await saveDraft(id, broken(), 1), 200);
    await json(await saveDraft(id, saying("welcome"), 2), 200);
    const pub = await json(await s.api(`/api/apps/${id}/publish`, { method: "POST", json: { note: "nicer" } }), 200);
    expect(pub).toMatchObject({
      published: 2,
      created: true,
      version: { version: 2, source: "publish", note: "nicer" },
    });
    expect(await json(await s.api(`/api/apps/${id}/draft`), 200)).toMatchObject({ baseVersion: 2, dirty: false });

    await json(await saveDraft(id, saying("draft only")), 200);
    expect(await studioRun(id)).toBe("draft only Ada");
    expect((await v1Run(id)).body.data.outputs).toEqual({ said: "welcome Ada" });

    // MCP serves the published version's tool and runs it.
    const mcp = await s.api(`/api/apps/${id}/mcp`, {
      method: "POST",
      headers: { accept: "application/json, text/event-stream" },
      json: { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "greeter", arguments: { who: "Bo" } } },
    });
    expect(JSON.stringify(await json(mcp, 200))).toContain("welcome Bo");

    const versions = await json(await s.api(`/api/apps/${id}/versions`), 200);
    expect(versions).toMatchObject({ published: 2, draft: { baseVersion: 2 } });
    expect(versions.versions.map((v: any) => [v.version, v.published, v.draft])).toEqual([
      [1, false, false],
      [2, true, true],
    ]);

    // Rollback: publish version 1; the draft is left alone.
    expect(
      await json(await s.api(`/api/apps/${id}/publish`, { method: "POST", json: { version: 1 } }), 200),
    ).toMatchObject({
      published: 1,
      created: false,
    });
    expect((await v1Run(id)).body.data.outputs).toEqual({ said: "hello Ada" });
    expect(await studioRun(id)).toBe("draft only Ada");

    // Restoring an old version makes it the draft (based on that version), not the published one.
    const restored = await json(await s.api(`/api/apps/${id}/versions/2/restore`, { method: "POST" }), 200);
    expect(restored.restored).toBe(2);
    expect((await json(await s.api(`/api/apps/${id}/draft`), 200)).baseVersion).toBe(2);
    expect(await studioRun(id)).toBe("welcome Ada");
    expect((await v1Run(id)).body.data.outputs).toEqual({ said: "hello Ada" });
  });

  it("a stale save is refused with the current draft; nothing is overwritten", async () => {
    const { id } = await importApp(saying("hello"));
    await json(await saveDraft(id, saying("first editor"), 1), 200);
    const stale = await json(await saveDraft(id, saying("second editor"), 1), 409);
    expect(stale.error.code).toBe("draft.stale");
    expect(stale.draft).toMatchObject({ revision: 2 });
    expect(JSON.stringify(stale.draft.workflow)).toContain("first editor");
    expect(JSON.stringify((await json(await s.api(`/api/apps/${id}/draft`), 200)).workflow)).toContain("first editor");
  });

  it("bad input is a typed error and changes nothing", async () => {
    const { id } = await importApp(saying("hello"));
    const notWorkflow = await json(await saveDraft(id, { nodes: "none" }), 422);
    expect(notWorkflow.error.code).toBe("weft.schema_invalid");
    expect((await json(await saveDraft(id, undefined), 400)).error.code).toBe("request.missing_workflow");
    const chat = { ...saying("x"), mode: "advanced-chat" };
    expect((await json(await saveDraft(id, chat), 422)).error.code).toBe("workflow.mode_mismatch");
    expect((await json(await saveDraft(id, saying("x"), 0), 400)).error.code).toBe("draft.invalid_revision");
    expect((await json(await saveDraft("NOPE", saying("x")), 404)).error.code).toBe("app.not_found");
    expect((await json(await s.api("/api/apps/NOPE/publish", { method: "POST" }), 404)).error.code).toBe(
      "app.not_found",
    );
    const noVersion = await s.api(`/api/apps/${id}/publish`, { method: "POST", json: { version: 7 } });
    expect((await json(noVersion, 404)).error.code).toBe("version.not_found");
    expect(await json(await s.api(`/api/apps/${id}/draft`), 200)).toMatchObject({ revision: 1, dirty: false });
  });

  it("an import with errors is created as an unpublished draft: /v1 and MCP refuse it until it is published", async () => {
    const { id, body } = await importApp(broken());
    expect(body.app.publishedVersion).toBeUndefined();
    expect(body.diagnostics.some((d: any) => d.severity === "error")).toBe(true);
    const live = await v1Run(id);
    expect(live).toMatchObject({ status: 400, body: { code: "app_unavailable" } });
    expect(live.body.message).toContain("not been published");
    const mcp = await s.api(`/api/apps/${id}/mcp`, {
      method: "POST",
      headers: { accept: "application/json, text/event-stream" },
      json: { jsonrpc: "2.0", id: 1, method: "tools/list" },
    });
    expect((await json(mcp, 409)).error.code).toBe("app.not_published");
    await json(await saveDraft(id, saying("fixed")), 200);
    await json(await s.api(`/api/apps/${id}/publish`, { method: "POST" }), 200);
    expect((await v1Run(id)).body.data.outputs).toEqual({ said: "fixed Ada" });
  });
});
