/**
 * Issue 34 item 3 over HTTP: a proposal arrives with its tests run on the draft plus the proposal before the
 * user decides ("tests: 0/1 pass (was 1/1): case 'refund' fails at node 'Title': …"); a proposal that keeps
 * the outputs passes; the agent sees failing tests as feedback and revises (bounded) before proposing; an app
 * without cases gets a dry run on its last successful run's inputs. The replay model echoes each LLM node's
 * prompt, so a changed prompt gives a changed answer; the replay cache means only changed nodes call it.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLlmService, parseLlmConfig } from "../../src/llm/index.js";
import { createSandbox } from "../../src/sandbox/index.js";
import { DirFileService } from "../../src/tools/files.js";
import { readSse, startTestServer, type TestServer } from "../server/helpers.js";
import { type RecordedRequest, type ReplayServer, reply, startReplayServer } from "../support/replay-server.js";

const FIXTURE = readFileSync(join(import.meta.dirname, "../fixtures/apptests/two-llm.yml"), "utf8");

let llm: ReplayServer;
let s: TestServer;
let filesDir = "";

const lastUser = (body: any): string => {
  const msgs = Array.isArray(body?.messages) ? body.messages : [];
  const u = [...msgs].reverse().find((m: any) => m.role === "user");
  return typeof u?.content === "string" ? u.content : JSON.stringify(u?.content);
};
/** A workflow node's request (the agent's carry tools). */
const isNode = (r: RecordedRequest) => !Array.isArray(r.body?.tools);

beforeAll(async () => {
  filesDir = mkdtempSync(join(tmpdir(), "weft-proof-files-"));
  llm = await startReplayServer();
  llm.when(isNode, (r) => reply.text(`echo(${lastUser(r.body)})`), { times: Number.POSITIVE_INFINITY });
  const llmConfig = parseLlmConfig({
    endpoints: { ep: { provider: "openai-compatible", baseURL: llm.openaiBaseURL, defaultModel: "house-model" } },
    default: "ep",
    providers: { openai: "ep" },
    retry: { maxRetries: 0 },
  });
  s = await startTestServer({
    llmConfig,
    services: { llm: createLlmService(llmConfig), sandbox: createSandbox(), files: new DirFileService(filesDir) },
  });
});
afterAll(async () => {
  await s?.stop();
  await llm?.close();
  rmSync(filesDir, { recursive: true, force: true });
});

const json = async (path: string, init?: Parameters<TestServer["api"]>[1]) => {
  const res = await s.api(path, init);
  return { status: res.status, body: (await res.json()) as any };
};

async function importApp(): Promise<string> {
  const r = await json("/api/apps/import", { method: "POST", body: FIXTURE });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.app.id;
}

async function finishedRun(appId: string, text: string): Promise<string> {
  const started = await json(`/api/apps/${appId}/runs`, { method: "POST", json: { inputs: { text } } });
  expect(started.status, JSON.stringify(started.body)).toBe(202);
  const runId = started.body.runId as string;
  await expect
    .poll(async () => (await json(`/api/runs/${runId}`)).body.status, { timeout: 60_000 })
    .not.toBe("running");
  const run = (await json(`/api/runs/${runId}`)).body;
  expect(run.status, JSON.stringify(run.error)).toBe("succeeded");
  return runId;
}

/** The draft's compact workflow with the Title node's prompt changed by `f`. */
async function retitle(appId: string, f: (user: string, system: string) => { user?: string; system?: string }) {
  const wf = structuredClone((await json(`/api/apps/${appId}/workflow`)).body.workflow);
  const title = wf.nodes.find((n: any) => n.id === "title");
  const tpl = title.config.prompt_template as Array<{ role: string; text: string }>;
  const user = tpl.find((m) => m.role === "user")!;
  const system = tpl.find((m) => m.role === "system")!;
  const next = f(user.text, system.text);
  if (next.user !== undefined) user.text = next.user;
  if (next.system !== undefined) system.text = next.system;
  return wf;
}

const nodeRequests = () => llm.requests.filter(isNode).length;

describe("proposals arrive with proof (issue 34)", { timeout: 180_000 }, () => {
  let appId = "";

  it("a proposal that breaks a case carries the failing case and node; one that keeps them passes", async () => {
    appId = await importApp();
    const runId = await finishedRun(appId, "Refunds take two weeks");
    const added = await json(`/api/apps/${appId}/tests`, { method: "POST", json: { from_run: runId, name: "refund" } });
    expect(added.status, JSON.stringify(added.body)).toBe(201);

    const before = nodeRequests();
    const broken = await retitle(appId, () => ({ user: "Headline for: {{#summarise.text#}}" }));
    const p = await json(`/api/apps/${appId}/proposals`, {
      method: "POST",
      json: { workflow: broken, instruction: "headline" },
    });
    expect(p.status, JSON.stringify(p.body)).toBe(201);
    expect(p.body.tests).toMatchObject({ mode: "cases", passed: 0, failed: 1, was: { passed: 1, failed: 0 } });
    expect(p.body.tests.failures[0]).toMatchObject({ caseName: "refund", nodeId: "title", nodeTitle: "Title" });
    expect(p.body.tests.line).toMatch(
      /^tests: 0\/1 pass \(was 1\/1\): case 'refund' fails at node 'Title': title: expected "echo\(Title for: .*got "echo\(Headline for: /,
    );
    // The draft's run asked for both nodes (nothing cached yet); the proposal's only for the changed Title.
    expect(nodeRequests() - before).toBe(3);
    // The failing run is a stored run: the review links to it.
    expect((await json(`/api/runs/${p.body.tests.failures[0].runId}`)).body.status).toBe("succeeded");
    // Stored with the proposal: listing and reading it return the same result.
    expect((await json(`/api/apps/${appId}/proposals/${p.body.id}`)).body.tests).toEqual(p.body.tests);

    const before2 = nodeRequests();
    const kept = await retitle(appId, (_u, sys) => ({ system: `${sys} Keep it short.` }));
    const q = await json(`/api/apps/${appId}/proposals`, { method: "POST", json: { workflow: kept } });
    expect(q.status).toBe(201);
    expect(q.body.tests).toMatchObject({
      mode: "cases",
      passed: 1,
      failed: 0,
      was: { passed: 1, failed: 0 },
      failures: [],
    });
    expect(q.body.tests.line).toBe("tests: 1/1 pass (was 1/1)");
    // Draft answers come from the cache; only the proposal's changed Title request reached the model.
    expect(nodeRequests() - before2).toBe(1);
  });

  it("the agent sees the failing test and revises its change before proposing (bounded)", async () => {
    const shown = (req: RecordedRequest) => {
      const tool = (req.body.messages as any[]).filter((m) => m.role === "tool").at(-1);
      return JSON.parse(tool.content).workflow as { nodes_info: any[]; edges: any[] };
    };
    // Compact ids differ from the app's: the prompt keeps its own reference, only its words change.
    const withTitle = (c: { nodes_info: any[] }, words: string, system?: string) => {
      const n = c.nodes_info.find((x) => x.title === "Title");
      n.param.user = String(n.param.user).replace(/^\w+ for:/, `${words} for:`);
      if (system) n.param.system = system;
      return c;
    };
    let feedback = "";
    llm.enqueue(
      reply.toolCall("get_current_workflow", {}),
      (req) => reply.toolCall("update_workflow", { workflow: withTitle(structuredClone(shown(req)), "Headline") }),
      reply.text("I changed the title prompt."),
      (req) => {
        feedback = lastUser(req.body);
        return reply.toolCall("get_current_workflow", {});
      },
      (req) =>
        reply.toolCall("update_workflow", {
          workflow: withTitle(structuredClone(shown(req)), "Title", "You write short titles."),
        }),
      reply.text("I kept the title prompt and asked for shorter titles."),
    );
    const ev = await readSse(
      await s.api(`/api/apps/${appId}/chat`, { method: "POST", json: { message: "make titles punchier" } }),
    );
    const proposal = ev.find((e) => e.data.type === "proposal")?.data.proposal;
    expect(proposal, JSON.stringify(ev.map((e) => e.data)).slice(0, 3000)).toBeDefined();
    expect(feedback).toContain("case 'refund' fails at node 'Title'");
    expect(proposal.tests).toMatchObject({ mode: "cases", passed: 1, failed: 0, revisions: 1 });
    expect(llm.pending()).toBe(0);
  });

  it("without test cases the proposal is dry-run on the last successful run's inputs, and says so", async () => {
    const other = await importApp();
    const none = await json(`/api/apps/${other}/proposals`, {
      method: "POST",
      json: { workflow: await retitle(other, () => ({ user: "Name: {{#summarise.text#}}" })) },
    });
    expect(none.body.tests).toMatchObject({ mode: "none", passed: 0, failed: 0 });
    expect(none.body.tests.line).toContain("no test cases and no successful run to dry-run on");

    const runId = await finishedRun(other, "Shipping is free");
    const dry = await json(`/api/apps/${other}/proposals`, {
      method: "POST",
      json: { workflow: await retitle(other, () => ({ user: "Name: {{#summarise.text#}}" })) },
    });
    expect(dry.body.tests).toMatchObject({ mode: "dry_run", passed: 1, failed: 0 });
    expect(dry.body.tests.line).toBe(
      `no test cases: dry run on the inputs of run ${runId} (the last successful one): succeeded`,
    );
  });
});

describe("regression on import over HTTP (issue 34 item 5)", { timeout: 120_000 }, () => {
  it("POST /api/apps/import with {dsl, tests} adds the side file's cases, runs them and reports", async () => {
    const appId = await importApp();
    const runId = await finishedRun(appId, "Returns are free");
    await json(`/api/apps/${appId}/tests`, { method: "POST", json: { from_run: runId, name: "returns" } });
    const side = await s.api(`/api/apps/${appId}/tests/export`);
    expect(side.status).toBe(200);
    const tests = await side.text();

    const ok = await json("/api/apps/import", { method: "POST", json: { dsl: FIXTURE, tests } });
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    expect(ok.body.tests).toMatchObject({
      added: 1,
      replaced: 0,
      passed: 1,
      failed: 0,
      line: "tests: 1/1 pass on version 1",
    });

    const changed = FIXTURE.replace("Title for: {{#summarise.text#}}", "Headline for: {{#summarise.text#}}");
    const bad = await json("/api/apps/import", { method: "POST", json: { dsl: changed, tests } });
    expect(bad.status).toBe(201);
    expect(bad.body.tests).toMatchObject({
      passed: 0,
      failed: 1,
      cases: [{ name: "returns", pass: false, failure: { nodeTitle: "Title" } }],
    });
    expect(bad.body.tests.line).toMatch(/^tests: 0\/1 pass on version 1: case 'returns' fails at node 'Title'/);

    const broken = await json("/api/apps/import", {
      method: "POST",
      json: { dsl: FIXTURE, tests: "weft_tests: 1\ncases: 7\n" },
    });
    expect(broken.status).toBe(201);
    expect(broken.body.tests.error.code).toBe("tests.invalid_file");
    expect((await json("/api/apps/import", { method: "POST", json: { tests } })).body.error.code).toBe(
      "request.missing_dsl",
    );
  });
});
