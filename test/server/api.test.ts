import { readFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSandbox } from "../../src/sandbox/index.js";
import { startServer } from "../../src/server/index.js";
import { corpusFile, readSse, type SseMessage, startTestServer, type TestServer } from "./helpers.js";

const WORD_STATS = readFileSync(new URL("../../examples/word-stats.yml", import.meta.url), "utf8");
const IF_ELSE = readFileSync(
  corpusFile("Akabane71__dify-workflow-cli/tests/fixtures/workflow/conditional_hello_branching_workflow.yml"),
  "utf8",
);

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ services: { sandbox: createSandbox() }, maxBodyBytes: 1024 * 1024 });
});
afterAll(async () => s.stop());

async function importApp(yaml = WORD_STATS): Promise<string> {
  const res = await s.api("/api/apps/import", { method: "POST", body: yaml, headers: { "content-type": "text/yaml" } });
  expect(res.status).toBe(201);
  return ((await res.json()) as any).app.id;
}

async function runToEnd(
  appId: string,
  inputs: Record<string, unknown>,
): Promise<{ runId: string; events: SseMessage[] }> {
  const start = await s.api(`/api/apps/${appId}/runs`, { method: "POST", json: { inputs } });
  expect(start.status).toBe(202);
  const { runId } = (await start.json()) as { runId: string };
  const events = await readSse(await s.api(`/api/runs/${runId}/events`));
  return { runId, events };
}

describe("auth and errors", () => {
  it("leaves /health open", async () => {
    const res = await fetch(`${s.url}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
  });

  it("refuses a request without a key or with a wrong key, as JSON", async () => {
    const none = await fetch(`${s.url}/api/apps`);
    expect(none.status).toBe(401);
    expect(((await none.json()) as any).error.code).toBe("auth.missing_key");
    const wrong = await fetch(`${s.url}/api/apps`, { headers: { authorization: "Bearer weft_nope" } });
    expect(wrong.status).toBe(401);
    expect(((await wrong.json()) as any).error).toMatchObject({ code: "auth.invalid_key" });
    const unknownRoute = await fetch(`${s.url}/api/nope`);
    expect(unknownRoute.status).toBe(401);
  });

  it("stores only a hash of the key", () => {
    const db = new Database(join(s.dir, "weft.db"), { readonly: true });
    const rows = db.prepare("SELECT hash FROM api_keys").all() as Array<{ hash: string }>;
    db.close();
    expect(rows.length).toBe(1);
    expect(rows[0]!.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(rows[0]!.hash).not.toContain(s.key);
    expect(JSON.stringify(rows)).not.toContain(s.key);
  });

  it("answers 404 JSON for an unknown API route and unknown ids", async () => {
    const res = await s.api("/api/nope");
    expect(res.status).toBe(404);
    expect(((await res.json()) as any).error.code).toBe("route.not_found");
    const app = await s.api("/api/apps/NOPE");
    expect(app.status).toBe(404);
    expect(((await app.json()) as any).error.code).toBe("app.not_found");
    const run = await s.api("/api/runs/NOPE/events");
    expect(run.status).toBe(404);
  });

  it("answers 400 for invalid JSON", async () => {
    const res = await s.api("/api/apps", {
      method: "POST",
      body: "{name: oops",
      headers: { "content-type": "application/json" },
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error.code).toBe("request.invalid_json");
  });

  it("answers 413 for an oversized body", async () => {
    const big = JSON.stringify({ name: "x".repeat(2 * 1024 * 1024) });
    const res = await s.api("/api/apps", {
      method: "POST",
      body: big,
      headers: { "content-type": "application/json" },
    });
    expect(res.status).toBe(413);
    expect(((await res.json()) as any).error.code).toBe("request.too_large");
  });

  it("answers 422 for an unreadable Dify YAML", async () => {
    const res = await s.api("/api/apps/import", {
      method: "POST",
      body: "app: [unclosed",
      headers: { "content-type": "text/yaml" },
    });
    expect(res.status).toBe(422);
    const body = (await res.json()) as any;
    expect(typeof body.error.code).toBe("string");
    expect(body.error.message.length).toBeGreaterThan(0);
  });
});

describe("apps and versions", () => {
  it("creates, lists, gets and deletes apps", async () => {
    const created = await s.api("/api/apps", { method: "POST", json: { name: "Blank", mode: "advanced-chat" } });
    expect(created.status).toBe(201);
    const { app } = (await created.json()) as any;
    expect(app).toMatchObject({ name: "Blank", mode: "advanced-chat" });
    const list = (await (await s.api("/api/apps")).json()) as any;
    expect(list.apps.map((a: any) => a.id)).toContain(app.id);
    const got = (await (await s.api(`/api/apps/${app.id}`)).json()) as any;
    expect(got.app.id).toBe(app.id);
    expect(got.version.version).toBe(1);
    const wf = (await (await s.api(`/api/apps/${app.id}/workflow`)).json()) as any;
    expect(wf.workflow.mode).toBe("advanced-chat");
    expect(wf.diagnostics.filter((d: any) => d.severity === "error")).toEqual([]);
    const del = await s.api(`/api/apps/${app.id}`, { method: "DELETE" });
    expect(del.status).toBe(200);
    expect((await s.api(`/api/apps/${app.id}`)).status).toBe(404);
  });

  it("rejects an unknown mode", async () => {
    const res = await s.api("/api/apps", { method: "POST", json: { name: "x", mode: "chatbot" } });
    expect(res.status).toBe(422);
    expect(((await res.json()) as any).error.code).toBe("app.invalid_mode");
  });

  it("puts validated versions, refuses invalid ones with diagnostics, lists and diffs versions", async () => {
    const id = await importApp();
    const cur = (await (await s.api(`/api/apps/${id}/workflow`)).json()) as any;
    expect(cur.version).toBe(1);
    expect(cur.workflow.nodes).toHaveLength(7);

    // A dangling reference: the analyser finds it and nothing is stored.
    const broken = structuredClone(cur.workflow);
    broken.nodes.find((n: any) => n.id === "1006").config.outputs[0].value_selector = ["1005", "nope"];
    const bad = await s.api(`/api/apps/${id}/workflow`, { method: "PUT", json: { workflow: broken } });
    expect(bad.status).toBe(422);
    const badBody = (await bad.json()) as any;
    expect(badBody.error.code).toBe("workflow.invalid");
    expect(badBody.error.diagnostics.some((d: any) => d.severity === "error" && d.nodeId === "1006")).toBe(true);

    // Not a workflow at all: schema issues come back as diagnostics.
    const schemaBad = await s.api(`/api/apps/${id}/workflow`, {
      method: "PUT",
      json: { workflow: { mode: "workflow", nodes: "no" } },
    });
    expect(schemaBad.status).toBe(422);
    expect(((await schemaBad.json()) as any).error.diagnostics.length).toBeGreaterThan(0);

    const edited = structuredClone(cur.workflow);
    edited.nodes.find((n: any) => n.id === "1003").config.template = "LONG ({{ n }} words)";
    const ok = await s.api(`/api/apps/${id}/workflow`, { method: "PUT", json: { workflow: edited, note: "louder" } });
    expect(ok.status).toBe(201);
    expect(((await ok.json()) as any).version).toBe(2);

    const versions = (await (await s.api(`/api/apps/${id}/versions`)).json()) as any;
    expect(versions.versions.map((v: any) => [v.version, v.source])).toEqual([
      [1, "import"],
      [2, "edit"],
    ]);
    const v1 = (await (await s.api(`/api/apps/${id}/versions/1`)).json()) as any;
    expect(v1.workflow.nodes.find((n: any) => n.id === "1003").config.template).toBe("long ({{ n }} words)");
    const diff = (await (await s.api(`/api/apps/${id}/versions/2/diff`)).json()) as any;
    expect(diff.diff.nodesChanged).toEqual(["1003"]);
    expect(diff.against).toBe(1);
    expect((await s.api(`/api/apps/${id}/versions/9`)).status).toBe(404);
    expect((await s.api(`/api/apps/${id}/versions/abc`)).status).toBe(400);
  });

  it("exports Dify YAML that imports back to the same workflow", async () => {
    const id = await importApp(IF_ELSE);
    const res = await s.api(`/api/apps/${id}/export`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("yaml");
    const yaml = await res.text();
    expect(yaml).toContain("kind: app");
    // Importing our own export back changes nothing, so no version is recorded (issue 36 item 7).
    const again = await s.api(`/api/apps/${id}/import`, { method: "POST", body: yaml });
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ version: 1, unchanged: true });
    const changed = yaml.replace(/title: ([^\n]+)/, "title: Renamed $1");
    const third = await s.api(`/api/apps/${id}/import`, { method: "POST", body: changed });
    expect(third.status).toBe(201);
    expect(await third.json()).toMatchObject({ version: 2, unchanged: false });
  });

  it("an app made in Weft, exported and imported back, records no version and no DSL-version warning", async () => {
    const created = (await (
      await s.api("/api/apps", { method: "POST", json: { name: "made here", mode: "workflow" } })
    ).json()) as any;
    const id = created.app.id;
    const yaml = await (await s.api(`/api/apps/${id}/export`)).text();
    const res = await s.api(`/api/apps/${id}/import`, { method: "POST", body: yaml });
    const body = (await res.json()) as any;
    expect(res.status).toBe(200);
    expect(body).toMatchObject({ version: created.version.version, unchanged: true });
    expect(body.warnings.map((w: { code: string }) => w.code)).not.toContain("dsl.version_older");
    expect(((await (await s.api(`/api/apps/${id}/versions`)).json()) as any).versions).toHaveLength(1);
  });

  it("refuses to import a chat YAML into a workflow app", async () => {
    const id = await importApp(IF_ELSE);
    const chat = (await (
      await s.api("/api/apps", { method: "POST", json: { name: "c", mode: "advanced-chat" } })
    ).json()) as any;
    const yaml = await (await s.api(`/api/apps/${chat.app.id}/export`)).text();
    const res = await s.api(`/api/apps/${id}/import`, { method: "POST", body: yaml });
    expect(res.status).toBe(422);
    expect(((await res.json()) as any).error.code).toBe("workflow.mode_mismatch");
  });
});

describe("runs", () => {
  it("streams run_started, node events and run_finished in order, also to a late client", async () => {
    const id = await importApp();
    const text =
      "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty twentyone";
    const { runId, events } = await runToEnd(id, { text });
    const types = events.map((e) => e.data.type);
    expect(types[0]).toBe("run_started");
    expect(types.at(-1)).toBe("run_finished");
    expect(events.at(-1)!.data).toMatchObject({
      status: "succeeded",
      outputs: { verdict: "long (21 words)", longest: "seventeen" },
    });
    expect(events.map((e) => Number(e.id))).toEqual(events.map((_, i) => i));
    // Every started node finishes after it started; the long branch ran and the short one was skipped.
    const started = events.filter((e) => e.data.type === "node_started").map((e) => e.data.nodeId);
    const finished = events.filter((e) => e.data.type === "node_finished").map((e) => e.data.nodeId);
    expect(started).toEqual(["1000", "1001", "1002", "1003", "1005", "1006"]);
    expect(finished).toEqual(started);
    for (const n of started) {
      expect(types.indexOf("node_started")).toBeLessThan(types.lastIndexOf("node_finished"));
      expect(events.findIndex((e) => e.data.type === "node_started" && e.data.nodeId === n)).toBeLessThan(
        events.findIndex((e) => e.data.type === "node_finished" && e.data.nodeId === n),
      );
    }
    expect(events.some((e) => e.data.type === "node_skipped" && e.data.nodeId === "1004")).toBe(true);

    // A client connecting after the end gets the same log; Last-Event-ID resumes after an event.
    const late = await readSse(await s.api(`/api/runs/${runId}/events`));
    expect(late.map((e) => e.data)).toEqual(events.map((e) => e.data));
    const tail = await readSse(await s.api(`/api/runs/${runId}/events`, { headers: { "last-event-id": "2" } }));
    expect(tail.map((e) => e.data)).toEqual(events.slice(3).map((e) => e.data));

    const result = (await (await s.api(`/api/runs/${runId}`)).json()) as any;
    expect(result).toMatchObject({ id: runId, appId: id, status: "succeeded", active: false, inputs: { text } });
    const trace = (await (await s.api(`/api/runs/${runId}/trace`)).json()) as any;
    expect(trace.trace.map((t: any) => t.nodeId)).toEqual(started);
    expect(trace.trace[1].outputs).toEqual({ count: 21, longest: "seventeen" });
    const runs = (await (await s.api(`/api/apps/${id}/runs`)).json()) as any;
    expect(runs.runs.map((r: any) => r.id)).toContain(runId);
    // Nothing left to resume.
    const resume = await s.api(`/api/runs/${runId}/resume`, { method: "POST" });
    expect(resume.status).toBe(409);
    expect(((await resume.json()) as any).error.code).toBe("run.finished");
    const cancel = await s.api(`/api/runs/${runId}/cancel`, { method: "POST" });
    expect(cancel.status).toBe(409);
    expect(((await cancel.json()) as any).error.code).toBe("run.not_active");
  });

  it("serves a finished run's events from the database after a restart", async () => {
    const id = await importApp(IF_ELSE);
    const { runId, events } = await runToEnd(id, { query: "hello again" });
    // A second server over the same file, as after a restart: it never saw the run live.
    const other = await startServer({ db: join(s.dir, "weft.db"), port: 0 });
    try {
      const res = await fetch(`${other.url}/api/runs/${runId}/events`, {
        headers: { authorization: `Bearer ${s.key}` },
      });
      const replay = await readSse(res);
      expect(replay.map((e) => e.data)).toEqual(events.map((e) => e.data));
      const rec = (await (
        await fetch(`${other.url}/api/runs/${runId}`, { headers: { authorization: `Bearer ${s.key}` } })
      ).json()) as any;
      expect(rec).toMatchObject({ status: "succeeded", outputs: { true: "hello again" } });
    } finally {
      await other.close();
    }
  });

  it("streams to a client that connected before the run finished", async () => {
    const id = await importApp(IF_ELSE);
    const start = await s.api(`/api/apps/${id}/runs`, { method: "POST", json: { inputs: { query: "well hello" } } });
    const { runId } = (await start.json()) as any;
    const [a, b] = await Promise.all([
      readSse(await s.api(`/api/runs/${runId}/events`)),
      readSse(await s.api(`/api/runs/${runId}/events`)),
    ]);
    expect(a.map((e) => e.data)).toEqual(b.map((e) => e.data));
    expect(a.at(-1)!.data).toMatchObject({
      type: "run_finished",
      status: "succeeded",
      outputs: { true: "well hello" },
    });
  });

  it("reports a failing run through its events and record, and resumes it", async () => {
    const id = await importApp(IF_ELSE);
    // query is required: the start node refuses the run.
    const { runId, events } = await runToEnd(id, {});
    expect(events.at(-1)!.data).toMatchObject({ type: "run_finished", status: "failed" });
    const rec = (await (await s.api(`/api/runs/${runId}`)).json()) as any;
    expect(rec.status).toBe("failed");
    expect(rec.error.code).toBeTruthy();
    const resume = await s.api(`/api/runs/${runId}/resume`, { method: "POST" });
    expect(resume.status).toBe(202);
    const all = await readSse(await s.api(`/api/runs/${runId}/events`));
    const starts = all.filter((e) => e.data.type === "run_started");
    expect(starts.map((e) => e.data.resumed)).toEqual([false, true]);
    expect(all.at(-1)!.data.type).toBe("run_finished");
  });

  it("refuses to run a version with errors and bad inputs", async () => {
    const id = await importApp();
    const badInputs = await s.api(`/api/apps/${id}/runs`, { method: "POST", json: { inputs: [1] } });
    expect(badInputs.status).toBe(400);
    // Imports are stored even with errors (so they can be fixed in the editor), but do not run.
    const yaml = WORD_STATS.replace('value_selector: ["1005", output]', 'value_selector: ["1005", missing]');
    const broken = await importApp(yaml);
    const res = await s.api(`/api/apps/${broken}/runs`, { method: "POST", json: { inputs: { text: "x" } } });
    expect(res.status).toBe(422);
    const body = (await res.json()) as any;
    expect(body.error.code).toBe("run.invalid_workflow");
    expect(body.error.diagnostics.length).toBeGreaterThan(0);
  });
});

describe("meta endpoints", () => {
  it("lists node types with JSON schemas", async () => {
    const res = (await (await s.api("/api/node-types")).json()) as any;
    const types = res.nodeTypes.map((t: any) => t.type);
    expect(types).toEqual(expect.arrayContaining(["start", "end", "llm", "if-else", "code", "iteration", "loop"]));
    const start = res.nodeTypes.find((t: any) => t.type === "start");
    expect(start.schema.properties.variables.type).toBe("array");
  });

  it("analyses a draft without storing it", async () => {
    const id = await importApp();
    const cur = (await (await s.api(`/api/apps/${id}/workflow`)).json()) as any;
    cur.workflow.nodes.find((n: any) => n.id === "1001").config.variables[0].value_selector = ["nope", "text"];
    const res = (await (
      await s.api("/api/analyse", { method: "POST", json: { workflow: cur.workflow } })
    ).json()) as any;
    expect(res.diagnostics.some((d: any) => d.severity === "error" && d.nodeId === "1001")).toBe(true);
    const versions = (await (await s.api(`/api/apps/${id}/versions`)).json()) as any;
    expect(versions.versions).toHaveLength(1);
  });

  it("says no model is configured, and refuses chat then", async () => {
    const res = (await (await s.api("/api/models")).json()) as any;
    expect(res.configured).toBe(false);
    const id = await importApp();
    const chat = await s.api(`/api/apps/${id}/chat`, { method: "POST", json: { message: "hi" } });
    expect(chat.status).toBe(503);
    expect(((await chat.json()) as any).error.code).toBe("llm.not_configured");
  });
});
