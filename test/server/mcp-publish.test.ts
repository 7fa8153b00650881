/**
 * Apps published as MCP servers, driven by the official MCP SDK client: `weft mcp serve FILE` over stdio
 * (the real CLI as a child process) and `/api/apps/:id/mcp` on a real server over streamable HTTP, behind
 * the API keys. One tool per app: start inputs are its JSON Schema, end outputs its result.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildWorkflow } from "../support/build.js";
import { WEFT_BIN } from "../support/weft-bin.js";
import { startTestServer, type TestServer } from "./helpers.js";

const TIMEOUT = 120_000;
const ROOT = resolve(import.meta.dirname, "../..");

const shout = buildWorkflow({
  nodes: [
    {
      id: "start",
      type: "start",
      variables: [
        { variable: "words", label: "Words", type: "text-input", required: true, max_length: 40 },
        { variable: "times", label: "Times", type: "number", required: false },
        { variable: "tone", label: "Tone", type: "select", options: ["loud", "soft"], required: false },
      ],
    },
    {
      id: "t",
      type: "template-transform",
      template: "{{ w | upper }}x{{ n or 1 }}",
      variables: [
        { variable: "w", value_selector: ["start", "words"] },
        { variable: "n", value_selector: ["start", "times"] },
      ],
    },
    { id: "end", type: "end", outputs: [{ variable: "shouted", value_selector: ["t", "output"] }] },
  ],
  edges: [
    ["start", "t"],
    ["t", "end"],
  ],
});

function expectSchema(tool: { inputSchema: Record<string, any> }) {
  expect(tool.inputSchema).toMatchObject({
    type: "object",
    properties: {
      words: { type: "string", maxLength: 40 },
      times: { type: "number" },
      tone: { type: "string", enum: ["loud", "soft"] },
    },
    required: ["words"],
  });
}

describe("weft mcp serve over stdio", () => {
  let client: Client;
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), "weft-mcp-stdio-"));
    const file = join(dir, "shout.json");
    writeFileSync(file, JSON.stringify({ ...shout, name: "Shout it" }));
    writeFileSync(
      join(dir, "weft.config.json"),
      JSON.stringify({ db: join(dir, "weft.db"), files: { dir: join(dir, "files") } }),
    );
    client = new Client({ name: "test", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: WEFT_BIN,
        args: ["mcp", "serve", file, "--config", join(dir, "weft.config.json")],
        cwd: ROOT,
        stderr: "pipe",
      }),
    );
  }, TIMEOUT);
  afterAll(async () => {
    await client?.close();
  });

  it("lists one tool whose schema is the start inputs, and a call answers the end outputs", {
    timeout: TIMEOUT,
  }, async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["Shout_it"]);
    expectSchema(tools[0] as never);
    const r = await client.callTool({ name: "Shout_it", arguments: { words: "hey", times: 2 } });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toEqual({ shouted: "HEYx2" });
    expect(JSON.parse((r.content as Array<{ text: string }>)[0]!.text)).toEqual({ shouted: "HEYx2" });
  });

  it("bad arguments are an error result naming the input, not a crash", { timeout: TIMEOUT }, async () => {
    const missing = await client.callTool({ name: "Shout_it", arguments: {} });
    expect(missing.isError).toBe(true);
    expect((missing.content as Array<{ text: string }>)[0]!.text).toContain("words");
    const typed = await client.callTool({ name: "Shout_it", arguments: { words: "x", times: "many" } });
    expect(typed.isError).toBe(true);
    expect((typed.content as Array<{ text: string }>)[0]!.text).toContain("times");
    // The server still answers afterwards.
    expect((await client.callTool({ name: "Shout_it", arguments: { words: "ok" } })).structuredContent).toEqual({
      shouted: "OKx1",
    });
  });
});

describe("/api/apps/:id/mcp over streamable HTTP", () => {
  let s: TestServer;
  let appId: string;
  beforeAll(async () => {
    s = await startTestServer();
    const res = await s.api("/api/apps", {
      method: "POST",
      json: { name: "Shouter", mode: "workflow", workflow: shout },
    });
    expect(res.status).toBe(201);
    appId = ((await res.json()) as { app: { id: string } }).app.id;
  }, TIMEOUT);
  afterAll(async () => {
    await s?.stop();
  });

  it("the official client lists and calls the app's tool with an API key; the call is a stored run", {
    timeout: TIMEOUT,
  }, async () => {
    const client = new Client({ name: "test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${s.url}/api/apps/${appId}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${s.key}` } },
      }),
    );
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(["Shouter"]);
      expectSchema(tools[0] as never);
      const r = await client.callTool({ name: "Shouter", arguments: { words: "weft" } });
      expect(r.structuredContent).toEqual({ shouted: "WEFTx1" });
      const runId = (r._meta as { runId: string }).runId;
      const run = await s.api(`/api/runs/${runId}`);
      expect(run.status).toBe(200);
      expect(((await run.json()) as { status: string }).status).toBe("succeeded");
    } finally {
      await client.close();
    }
  });

  it("without a key the endpoint refuses, as the rest of /api does", { timeout: TIMEOUT }, async () => {
    const client = new Client({ name: "test", version: "1.0.0" });
    await expect(
      client.connect(new StreamableHTTPClientTransport(new URL(`${s.url}/api/apps/${appId}/mcp`))),
    ).rejects.toThrow(/auth.missing_key/);
    const res = await fetch(`${s.url}/api/apps/nope/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${s.key}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(res.status).toBe(404);
  });
});
