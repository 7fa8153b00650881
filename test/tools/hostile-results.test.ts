/**
 * Tool results are hostile input like model output (issue 28 C): an MCP server (the official SDK server,
 * on 127.0.0.1) or an OpenAPI endpoint answering deeply nested JSON or prototype-changing keys makes the
 * tool node fail with tool.bad_result naming the tool, and nothing reaches node outputs or Object.prototype.
 */

import { mkdtempSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WeftConfigSchema } from "../../src/config/weft-config.js";
import { runWorkflow } from "../../src/engine/run.js";
import { type BuiltServices, buildServices } from "../../src/runtime/services.js";
import { buildWorkflow } from "../support/build.js";
import { type HostileMcp, startHostileMcp } from "../support/hostile-mcp.js";

const TIMEOUT = 60_000;
const nest = (depth: number) => `${"[".repeat(depth)}1${"]".repeat(depth)}`;

/** A loopback OpenAPI server with one operation whose response body the test sets. */
async function startHostileApi(): Promise<{ specUrl: string; body: { text: string }; close(): Promise<void> }> {
  const body = { text: "{}" };
  let base = "";
  const server: Server = createServer((req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    if (req.url === "/openapi.json") {
      const op = { get: { operationId: "fetchThing", responses: { "200": { description: "ok" } } } };
      return res.end(
        JSON.stringify({
          openapi: "3.0.3",
          info: { title: "t", version: "1" },
          servers: [{ url: base }],
          paths: { "/thing": op },
        }),
      );
    }
    res.end(body.text);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { specUrl: `${base}/openapi.json`, body, close: () => new Promise((r) => server.close(() => r())) };
}

function oneTool(provider_type: "mcp" | "api", provider_id: string, tool_name: string) {
  return buildWorkflow({
    nodes: [
      { id: "start", type: "start", variables: [] },
      { id: "t", type: "tool", provider_type, provider_id, tool_name, tool_parameters: {} },
      {
        id: "end",
        type: "end",
        outputs: [
          { variable: "json", value_selector: ["t", "json"] },
          { variable: "text", value_selector: ["t", "text"] },
        ],
      },
    ],
    edges: [
      ["start", "t"],
      ["t", "end"],
    ],
  });
}

let mcp: HostileMcp;
let api: Awaited<ReturnType<typeof startHostileApi>>;
let services: BuiltServices;

beforeAll(async () => {
  mcp = await startHostileMcp();
  api = await startHostileApi();
  const cfg = WeftConfigSchema.parse({
    http: { allowHosts: ["127.0.0.1"] },
    tools: { mcp: { hostile: { url: mcp.url, timeoutMs: 20_000 } }, openapi: { hapi: { spec: api.specUrl } } },
  });
  const dir = mkdtempSync(join(tmpdir(), "weft-hostile-tools-"));
  services = await buildServices({
    http: cfg.http,
    files: { dir: join(dir, "files") },
    tools: cfg.tools,
    baseDir: dir,
  });
}, TIMEOUT);

afterAll(async () => {
  await services?.close();
  await mcp?.close();
  await api?.close();
});

async function refused(provider: "mcp" | "api", reason: RegExp) {
  const r = await runWorkflow(
    provider === "mcp" ? oneTool("mcp", "hostile", "give") : oneTool("api", "hapi", "fetchThing"),
    { inputs: {}, services },
  );
  expect(r.status).toBe("failed");
  expect(r.error?.nodeId).toBe("t");
  expect(r.error?.code, r.error?.message).toBe("tool.bad_result");
  expect(r.error?.message).toContain(provider === "mcp" ? "hostile/give" : "hapi/fetchThing");
  expect(r.error?.message.length).toBeLessThan(1000);
  expect(r.error?.message).toMatch(reason);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
}

describe("MCP tool results are hostile input", () => {
  it("20,000-deep JSON text from the SDK server is tool.bad_result (too_deep)", { timeout: TIMEOUT }, async () => {
    mcp.reply({ sdk: { content: [{ type: "text", text: nest(20_000) }] } });
    await refused("mcp", /nests deeper than 64 levels/);
  });

  it("20,000-deep structured content is tool.bad_result (too_deep)", { timeout: TIMEOUT }, async () => {
    mcp.reply({ raw: `{"content":[],"structuredContent":{"a":${nest(20_000)}}}` });
    await refused("mcp", /nests deeper than 64 levels/);
  });

  it("a __proto__ key in structured content from the SDK server never reaches node outputs", {
    timeout: TIMEOUT,
  }, async () => {
    // The SDK client's schema check drops the key (so the reader's own-key and prototype checks are a
    // second line); either way the output has no such key and nothing is polluted.
    const structured = { ok: 1 };
    Object.defineProperty(structured, "__proto__", { value: { polluted: true }, enumerable: true });
    mcp.reply({ sdk: { content: [], structuredContent: structured } });
    const r = await runWorkflow(oneTool("mcp", "hostile", "give"), { inputs: {}, services });
    const out = (r.outputs.json as Array<Record<string, unknown>> | undefined)?.[0];
    if (r.status === "failed") expect(r.error?.code).toBe("tool.bad_result");
    else expect(Object.hasOwn(out!, "__proto__")).toBe(false);
    if (out) expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("__proto__ and constructor.prototype keys in JSON text are refused", { timeout: TIMEOUT }, async () => {
    for (const text of ['{"a":[{"__proto__":{"polluted":true}}]}', '{"constructor":{"prototype":{"polluted":true}}}']) {
      mcp.reply({ sdk: { content: [{ type: "text", text }] } });
      await refused("mcp", /__proto__/);
    }
  });

  it("ordinary results are unchanged: JSON text and structured content as json, bracketed prose as text", {
    timeout: TIMEOUT,
  }, async () => {
    mcp.reply({
      sdk: {
        content: [
          { type: "text", text: '{"n":[1,{"constructor":"x"}]}' },
          { type: "text", text: "[not json" },
        ],
        structuredContent: { s: 1 },
      },
    });
    const r = await runWorkflow(oneTool("mcp", "hostile", "give"), { inputs: {}, services });
    expect(r.status, r.error?.message).toBe("succeeded");
    expect(r.outputs.json).toEqual([{ s: 1 }, { n: [1, { constructor: "x" }] }]);
    expect(r.outputs.text).toBe('{"n":[1,{"constructor":"x"}]}\n[not json');
  });
});

describe("OpenAPI tool responses are hostile input", () => {
  it("a 20,000-deep or __proto__-keyed JSON response is tool.bad_result naming the tool", {
    timeout: TIMEOUT,
  }, async () => {
    api.body.text = nest(20_000);
    await refused("api", /nests deeper than 64 levels/);
    api.body.text = '{"x":{"__proto__":{"polluted":true}}}';
    await refused("api", /__proto__/);
  });

  it("an ordinary response is json; an invalid one stays text", { timeout: TIMEOUT }, async () => {
    api.body.text = '{"a":[1,2]}';
    let r = await runWorkflow(oneTool("api", "hapi", "fetchThing"), { inputs: {}, services });
    expect(r.outputs.json).toEqual([{ a: [1, 2] }]);
    api.body.text = "{oops";
    r = await runWorkflow(oneTool("api", "hapi", "fetchThing"), { inputs: {}, services });
    // Dify's tool node gives [{data: []}] when the tool gave no JSON.
    expect([r.status, r.outputs.json, r.outputs.text]).toEqual(["succeeded", [{ data: [] }], "{oops"]);
  });
});
