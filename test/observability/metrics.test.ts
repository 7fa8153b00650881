/**
 * `GET /metrics` on a real `weft serve` (in-process server on loopback): after runs through the service API,
 * the Prometheus text parsed by a text-format parser has run counters equal to the runs made, node duration
 * histograms, model tokens by model and HTTP durations by route; a metrics token guards it when set.
 */
import { createRequire } from "node:module";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLlmService, parseLlmConfig } from "../../src/llm/index.js";
import { Metrics } from "../../src/observability/metrics.js";
import { startTestServer, type TestServer } from "../server/helpers.js";
import { buildWorkflow } from "../support/build.js";
import { type ReplayServer, reply, startReplayServer } from "../support/replay-server.js";

interface Sample {
  labels?: Record<string, string>;
  value?: string;
  count?: string;
  buckets?: Record<string, string>;
}
interface Family {
  name: string;
  type: string;
  metrics: Sample[];
}
const parsePrometheus = createRequire(import.meta.url)("parse-prometheus-text-format") as (t: string) => Family[];

let llm: ReplayServer;
let server: TestServer;
const metrics = new Metrics();
beforeAll(async () => {
  llm = await startReplayServer();
  const llmConfig = parseLlmConfig({
    endpoints: { ep: { provider: "openai-compatible", baseURL: llm.openaiBaseURL, model: "replay" } },
    default: "ep",
    retry: { maxRetries: 0 },
  });
  server = await startTestServer({
    services: metrics.meter({ llm: createLlmService(llmConfig) }),
    observer: metrics.observer("serve"),
    metrics,
  });
});
afterAll(async () => {
  await server?.stop();
  await llm?.close();
});

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

const family = (fs: Family[], name: string) => fs.find((f) => f.name === name);
const valueWhere = (f: Family | undefined, labels: Record<string, string>) =>
  Number(f?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v))?.value ?? 0);

describe("/metrics", () => {
  it("counts the runs made, times nodes and model calls, and times HTTP requests by route", async () => {
    const { app } = await server.deps.apps.createApp({ name: "m", mode: "workflow" }, wf, "create");
    const { key } = await server.deps.stores.service.createAppKey(app.id);
    llm.enqueue(
      reply.text("one", { usage: { input: 10, output: 3 } }),
      reply.text("two", { usage: { input: 10, output: 3 } }),
      reply.status(400),
    );
    const statuses: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${server.url}/v1/workflows/run`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ inputs: { q: `question ${i}` }, response_mode: "blocking", user: "u" }),
      });
      statuses.push(((await res.json()) as { data: { status: string } }).data.status);
    }
    expect(statuses).toEqual(["succeeded", "succeeded", "failed"]);

    const res = await fetch(`${server.url}/metrics`);
    expect(res.status).toBe(200);
    const text = await res.text();
    const fs = parsePrometheus(text);
    expect(valueWhere(family(fs, "weft_runs_started_total"), { app: app.id, source: "serve" })).toBe(3);
    const finished = family(fs, "weft_runs_finished_total");
    expect(valueWhere(finished, { app: app.id, status: "succeeded" })).toBe(2);
    expect(valueWhere(finished, { app: app.id, status: "failed" })).toBe(1);
    expect(family(fs, "weft_node_duration_seconds")?.type).toBe("HISTOGRAM");
    // The parser drops histogram labels when `le` comes first (prom-client's order): read the counts as lines.
    expect(text).toContain('weft_node_duration_seconds_count{type="llm",outcome="ok"} 2');
    const tokens = family(fs, "weft_model_tokens_total");
    expect(valueWhere(tokens, { model: "gpt-4o-mini", direction: "input" })).toBe(20);
    expect(valueWhere(tokens, { model: "gpt-4o-mini", direction: "output" })).toBe(6);
    expect(text).toMatch(
      /weft_http_request_duration_seconds_count\{[^}]*route="\/v1\/workflows\/run"[^}]*status="200"[^}]*\} 3/,
    );
  });

  it("with a metrics token, refuses scrapes without it", async () => {
    const guarded = await startTestServer({ metrics: new Metrics(), metricsToken: "scrape-me" });
    try {
      expect((await fetch(`${guarded.url}/metrics`)).status).toBe(401);
      expect((await fetch(`${guarded.url}/metrics`, { headers: { authorization: "Bearer nope" } })).status).toBe(401);
      const ok = await fetch(`${guarded.url}/metrics`, { headers: { authorization: "Bearer scrape-me" } });
      expect(ok.status).toBe(200);
      expect(await ok.text()).toContain("weft_runs_started_total");
    } finally {
      await guarded.stop();
    }
  });
});
