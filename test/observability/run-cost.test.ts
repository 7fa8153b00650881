/**
 * Run cost where users look: token usage and cost per run in `GET /api/runs/:id` and `weft runs --json`, and
 * summed per app in `GET /api/apps/:id/usage` and `weft runs --usage --app ID`, priced by weft.config.json
 * `observability.prices`. Runs go through a real server (service API, replay model server); the CLI reads the
 * same SQLite database as users run it (bin/weft).
 */
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLlmService, parseLlmConfig } from "../../src/llm/index.js";
import { PriceTableSchema } from "../../src/observability/cost.js";
import { startTestServer, type TestServer } from "../server/helpers.js";
import { buildWorkflow } from "../support/build.js";
import { type ReplayServer, reply, startReplayServer } from "../support/replay-server.js";
import { WEFT_BIN } from "../support/weft-bin.js";

const run = promisify(execFile);
const prices = PriceTableSchema.parse({
  currency: "EUR",
  models: { "gpt-4o-mini": { inputPerMillion: 1000, outputPerMillion: 2000 } },
});
// 1000 per million input, 2000 per million output: a token costs 0.001 / 0.002.
const costOf = (input: number, output: number) => input * 0.001 + output * 0.002;

let llm: ReplayServer;
let server: TestServer;
let appId: string;
let config: string;
const runIds: string[] = [];

const wf = buildWorkflow({
  nodes: [
    { id: "start", type: "start", variables: [{ variable: "q", label: "Q", type: "text-input", required: true }] },
    {
      id: "llm",
      type: "llm",
      model: { provider: "openai", name: "gpt-4o-mini", mode: "chat", completion_params: {} },
      prompt_template: [{ role: "user", text: "{{#start.q#}}" }],
      context: { enabled: false, variable_selector: [] },
      vision: { enabled: false },
    },
    { id: "end", type: "end", outputs: [{ variable: "a", value_selector: ["llm", "text"] }] },
  ],
  edges: [
    ["start", "llm"],
    ["llm", "end"],
  ],
});

beforeAll(async () => {
  llm = await startReplayServer();
  const llmConfig = parseLlmConfig({
    endpoints: { ep: { provider: "openai-compatible", baseURL: llm.openaiBaseURL, model: "replay" } },
    default: "ep",
    retry: { maxRetries: 0 },
  });
  server = await startTestServer({ services: { llm: createLlmService(llmConfig) }, prices });
  config = join(server.dir, "weft.config.json");
  writeFileSync(config, JSON.stringify({ observability: { prices } }));
  const { app } = await server.deps.apps.createApp({ name: "cost", mode: "workflow" }, wf, "create");
  appId = app.id;
  const { key } = await server.deps.stores.service.createAppKey(app.id);
  llm.enqueue(
    reply.text("one", { usage: { input: 100, output: 10 } }),
    reply.text("two", { usage: { input: 50, output: 5 } }),
  );
  for (const q of ["a", "b"]) {
    const res = await fetch(`${server.url}/v1/workflows/run`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ inputs: { q }, response_mode: "blocking", user: "u" }),
    });
    const body = (await res.json()) as { workflow_run_id: string; data: { status: string } };
    expect(body.data.status).toBe("succeeded");
    runIds.push(body.workflow_run_id);
  }
});
afterAll(async () => {
  await server?.stop();
  await llm?.close();
});

const weft = async (...args: string[]) =>
  JSON.parse(
    (await run(WEFT_BIN, [...args, "--db", join(server.dir, "weft.db"), "--config", config, "--json"])).stdout,
  );

describe("run cost", () => {
  it("GET /api/runs/:id carries the run's tokens and cost", async () => {
    const body = (await (await server.api(`/api/runs/${runIds[0]}`)).json()) as { usage: Record<string, unknown> };
    expect(body.usage).toMatchObject({ inputTokens: 100, outputTokens: 10, totalTokens: 110, currency: "EUR" });
    expect(body.usage.cost).toBeCloseTo(costOf(100, 10), 9);
    expect(body.usage.byModel).toMatchObject({ "gpt-4o-mini": { inputTokens: 100, outputTokens: 10 } });
  });

  it("GET /api/apps/:id/usage sums the app's runs; an unknown app is 404", async () => {
    const res = await server.api(`/api/apps/${appId}/usage`);
    expect(res.status).toBe(200);
    const u = (await res.json()) as Record<string, unknown>;
    expect(u).toMatchObject({ appId, runs: 2, inputTokens: 150, outputTokens: 15, totalTokens: 165 });
    expect(u.cost).toBeCloseTo(costOf(150, 15), 9);
    expect(u.truncated).toBeUndefined();
    expect((await server.api("/api/apps/no-such-app/usage")).status).toBe(404);
    // The run list's filters apply: no run started after an hour from now.
    const none = (await (
      await server.api(`/api/apps/${appId}/usage?since=${new Date(Date.now() + 3_600_000).toISOString()}`)
    ).json()) as Record<string, unknown>;
    expect(none).toMatchObject({ runs: 0, totalTokens: 0, cost: 0 });
  });

  it("weft runs --json prints each run's usage; --usage --app sums them", async () => {
    const { runs } = (await weft("runs", "--app", appId)) as {
      runs: Array<{ id: string; usage: Record<string, number> }>;
    };
    const byId = new Map(runs.map((r) => [r.id, r.usage]));
    expect(byId.get(runIds[0]!)).toMatchObject({ inputTokens: 100, outputTokens: 10 });
    expect(byId.get(runIds[1]!)).toMatchObject({ inputTokens: 50, outputTokens: 5 });
    expect(byId.get(runIds[1]!)!.cost).toBeCloseTo(costOf(50, 5), 9);
    const total = (await weft("runs", "--usage", "--app", appId)) as Record<string, number>;
    expect(total).toMatchObject({ runs: 2, inputTokens: 150, outputTokens: 15 });
    expect(total.cost).toBeCloseTo(costOf(150, 15), 9);
  });
});
