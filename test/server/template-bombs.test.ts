/**
 * `weft serve` survives every template bomb (issue 16): a real server process, real HTTP and SSE. A chat
 * run streams an LLM answer from the replay server while the probe's bombs run in other apps; each bomb's
 * node fails with a jinja.* error, the chat stream arrives whole and finishes before the slowest bomb is
 * stopped, and the server keeps answering afterwards. Before the fix the first bomb ended the process
 * (V8 fatal error) or froze its event loop.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildWorkflow, tpl } from "../support/build.js";
import { tempDir } from "../support/per-file.js";
import { type ReplayServer, reply, startReplayServer } from "../support/replay-server.js";
import { cleanEnv, WEFT_BIN, weftOut } from "../support/weft-bin.js";
import { readSse, type SseMessage } from "./helpers.js";

const dir = tempDir("bombs");
const db = join(dir, "weft.db");
let replay: ReplayServer;
let child: ChildProcess | undefined;
let url = "";
let key = "";
let stderr = "";

const BOMBS = [
  "{{ range(300000000)|length }}",
  "{{ range(1e9)|length }}",
  "{% for i in range(100000000) %}{% endfor %}",
  "{% for i in range(10000) %}{% for j in range(10000) %}{% endfor %}{% endfor %}",
  "{{ range(3e7)|join }}",
  "{{ range(30000000)|join }}",
  "{% for i in range(100000) %}{% for j in range(100000) %}{{ j }}{% endfor %}{% endfor %}",
];
/** Few steps, each slow: only the node's timeout stops it, so it is still running while the chat streams. */
const SLOW = "{% set xs = range(100000)|reverse|list %}{% for i in range(100000) %}{{ xs|sort|length }}{% endfor %}";
const SLOW_TIMEOUT_S = 6;

function bombApp(template: string, timeout?: number) {
  return buildWorkflow({
    nodes: [
      { id: "start", type: "start", variables: [] },
      tpl("bomb", template, {}, timeout ? { timeout_seconds: timeout } : {}),
      { id: "end", type: "end", outputs: [{ variable: "out", value_selector: ["bomb", "output"] }] },
    ],
    edges: [
      ["start", "bomb"],
      ["bomb", "end"],
    ],
  });
}

const chat = buildWorkflow({
  mode: "advanced-chat",
  nodes: [
    { id: "start", type: "start", variables: [] },
    {
      id: "llm",
      type: "llm",
      model: { provider: "openai", name: "m", mode: "chat", completion_params: {} },
      prompt_template: [{ role: "user", text: "{{#sys.query#}}" }],
      context: { enabled: false, variable_selector: [] },
      vision: { enabled: false },
    },
    { id: "answer", type: "answer", answer: "{{#llm.text#}}" },
  ],
  edges: [
    ["start", "llm"],
    ["llm", "answer"],
  ],
});

async function api(path: string, init: RequestInit & { json?: unknown } = {}): Promise<Response> {
  const { json, ...rest } = init;
  const headers = new Headers(rest.headers);
  headers.set("authorization", `Bearer ${key}`);
  if (json !== undefined) headers.set("content-type", "application/json");
  return fetch(`${url}${path}`, { ...rest, headers, body: json !== undefined ? JSON.stringify(json) : rest.body });
}

async function createApp(name: string, workflow: unknown, mode = "workflow"): Promise<string> {
  const res = await api("/api/apps", { method: "POST", json: { name, mode, workflow } });
  expect(res.status).toBe(201);
  return ((await res.json()) as { app: { id: string } }).app.id;
}

async function startRun(appId: string, body: Record<string, unknown> = { inputs: {} }): Promise<string> {
  const res = await api(`/api/apps/${appId}/runs`, { method: "POST", json: body });
  expect(res.status).toBe(202);
  return ((await res.json()) as { runId: string }).runId;
}

/** The run's whole SSE stream, each message stamped with its arrival time. */
async function stream(runId: string): Promise<Array<SseMessage & { at: number }>> {
  const out: Array<SseMessage & { at: number }> = [];
  await readSse(await api(`/api/runs/${runId}/events`), (m) => out.push({ ...m, at: Date.now() }));
  return out;
}

beforeAll(async () => {
  replay = await startReplayServer();
  key = (JSON.parse(weftOut(["keys", "create", "--db", db, "--json"], { cwd: dir })) as { key: string }).key;
  // The server must use only the replay endpoint, whatever this shell configures.
  child = spawn(WEFT_BIN, ["serve", "--port", "0", "--db", db], {
    cwd: dir,
    env: { ...cleanEnv({ keepApiKeys: true }), WEFT_LLM_BASE_URL: replay.openaiBaseURL, WEFT_LLM_API_KEY: "k" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stderr!.on("data", (b) => {
    stderr += String(b);
  });
  let out = "";
  await new Promise<void>((res, rej) => {
    child!.stdout!.on("data", (b) => {
      out += String(b);
      if (/serving on http/.test(out)) res();
    });
    child!.once("exit", (code) => rej(new Error(`weft serve exited with ${code}: ${out}${stderr}`)));
  });
  url = /serving on (http:\/\/\S+)/.exec(out)![1]!;
}, 180_000);

afterAll(async () => {
  if (child?.pid && child.exitCode === null) {
    const exited = new Promise((r) => child!.once("exit", r));
    child.kill("SIGTERM");
    await exited;
  }
  await replay?.close();
});

describe("weft serve under template bombs", () => {
  it("fails each bomb's node with a jinja error while another run streams, and keeps serving", async () => {
    const words = Array.from({ length: 20 }, (_, i) => `w${i} `);
    replay.when((r) => r.api === "openai-chat", reply.text(words.join(""), { chunkDelayMs: 50 }), { times: Infinity });
    const chatApp = await createApp("chat", chat, "advanced-chat");
    const bombApps = await Promise.all(BOMBS.map((t, i) => createApp(`bomb ${i}`, bombApp(t))));
    const slowApp = await createApp("slow bomb", bombApp(SLOW, SLOW_TIMEOUT_S));

    const slowRun = await startRun(slowApp);
    const slowEvents = stream(slowRun);
    const bombRuns = await Promise.all(bombApps.map((a) => startRun(a)));
    const bombEvents = Promise.all(bombRuns.map(stream));
    const chatRun = await startRun(chatApp, { inputs: {}, query: "talk" });
    const chatEvents = await stream(chatRun);

    // The chat run streamed its whole answer, chunk by chunk.
    const chunks = chatEvents.filter((m) => m.data.type === "text_chunk");
    expect(chunks.length).toBeGreaterThan(5);
    expect(chunks.map((c) => c.data.text).join("")).toBe(words.join(""));
    const chatEnd = chatEvents.at(-1)!;
    expect(chatEnd.data).toMatchObject({ type: "run_finished", status: "succeeded" });

    for (const events of await bombEvents) {
      const node = events.find((m) => m.data.type === "node_finished" && m.data.nodeId === "bomb");
      expect(node?.data.status).toBe("failed");
      expect(node?.data.error.code).toMatch(/^jinja\./);
      expect(events.at(-1)!.data).toMatchObject({ type: "run_finished", status: "failed" });
    }
    const slow = await slowEvents;
    const slowNode = slow.find((m) => m.data.type === "node_finished" && m.data.nodeId === "bomb")!;
    expect(slowNode.data.error.code).toBe("node.timeout");
    // The slow bomb was still running when the chat run had already finished streaming.
    expect(chatEnd.at).toBeLessThan(slowNode.at);

    // Still alive and serving: health, and a fresh run of a well-behaved template.
    expect((await fetch(`${url}/health`)).status).toBe(200);
    const okApp = await createApp("fine", bombApp("{{ range(3)|join('-') }}"));
    const okEvents = await stream(await startRun(okApp));
    expect(okEvents.at(-1)!.data).toMatchObject({
      type: "run_finished",
      status: "succeeded",
      outputs: { out: "0-1-2" },
    });
    expect(child!.exitCode).toBeNull();
    expect(stderr).not.toMatch(/FATAL|heap out of memory/i);
  }, 240_000);
});
