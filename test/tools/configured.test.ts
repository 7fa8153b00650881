/**
 * Tools served by configuration, the way a user writes weft.config.json: a stdio MCP server (started as a
 * child process by the official SDK client), a streamable-HTTP MCP server written here, an OpenAPI document
 * served on 127.0.0.1 and a workflow file as a tool; Dify provider/tool names reach them through tools.map.
 */

import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { WeftConfigSchema } from "../../src/config/weft-config.js";
import { runWorkflow } from "../../src/engine/run.js";
import { type BuiltServices, buildServices } from "../../src/runtime/services.js";
import { checkToolUses, unservedDiagnostics } from "../../src/tools/configured/check.js";
import { buildWorkflow } from "../support/build.js";
import { type OpenApiServer, replayToolsStdio, startOpenApiServer } from "../support/replay-tools.js";

const TIMEOUT = 120_000;

/** A streamable-HTTP MCP server with one tool; it refuses requests without the configured header. */
async function startHttpMcp(key: string): Promise<{ url: string; calls: unknown[]; close(): Promise<void> }> {
  const calls: unknown[] = [];
  const server: Server = createServer(async (req, res) => {
    if (req.headers["x-test-key"] !== key) {
      res.writeHead(401).end("missing key");
      return;
    }
    const mcp = new McpServer({ name: "units", version: "1.0.0" });
    mcp.registerTool(
      "convert",
      {
        description: "Convert a length between units",
        inputSchema: { value: z.number(), from: z.enum(["km", "mi"]), to: z.enum(["km", "mi"]) },
      },
      async ({ value, from, to }) => {
        calls.push({ value, from, to });
        const km = from === "km" ? value : value * 1.609344;
        const out = to === "km" ? km : km / 1.609344;
        const result = { value: Math.round(out * 1000) / 1000, unit: to };
        return { content: [{ type: "text", text: JSON.stringify(result) }], structuredContent: result };
      },
    );
    // Stateless: one server and transport per request, as the SDK's stateless example does.
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on("close", () => {
      void transport.close();
      void mcp.close();
    });
    await mcp.connect(transport);
    let raw = "";
    req.on("data", (d) => (raw += d));
    req.on("end", () => void transport.handleRequest(req, res, raw ? JSON.parse(raw) : undefined));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  return { url, calls, close: () => new Promise((r) => server.close(() => r())) };
}

/** A tool node with its parameters given as Dify writes them. */
function toolNode(
  id: string,
  provider_type: string,
  provider_id: string,
  tool_name: string,
  params: Record<string, unknown>,
) {
  const tool_parameters: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(params)) {
    tool_parameters[k] = typeof v === "string" ? { type: "mixed", value: v } : { type: "constant", value: v };
  }
  return { id, type: "tool", provider_type, provider_id, tool_name, tool_parameters };
}

function oneTool(node: ReturnType<typeof toolNode>, vars: Array<Record<string, unknown>> = []) {
  return buildWorkflow({
    nodes: [
      { id: "start", type: "start", variables: vars },
      node,
      {
        id: "end",
        type: "end",
        outputs: [
          { variable: "text", value_selector: [node.id, "text"] },
          { variable: "json", value_selector: [node.id, "json"] },
          { variable: "files", value_selector: [node.id, "files"] },
        ],
      },
    ],
    edges: [
      ["start", node.id],
      [node.id, "end"],
    ],
  });
}

const input = (variable: string, type = "text-input") => ({ variable, label: variable, type, required: true });

let dir: string;
let http: Awaited<ReturnType<typeof startHttpMcp>>;
let api: OpenApiServer;
let services: BuiltServices;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "weft-configured-tools-"));
  http = await startHttpMcp("k-123");
  api = await startOpenApiServer({ token: "tok-456" });
  process.env.WEFT_TEST_MCP_KEY = "k-123";
  process.env.WEFT_TEST_API_TOKEN = "tok-456";
  // The workflow a tool runs: its start input is the parameter, its end output the result.
  writeFileSync(
    join(dir, "shout.json"),
    JSON.stringify(
      buildWorkflow({
        nodes: [
          { id: "start", type: "start", variables: [input("words")] },
          {
            id: "t",
            type: "template-transform",
            template: "{{ w | upper }}!",
            variables: [{ variable: "w", value_selector: ["start", "words"] }],
          },
          { id: "end", type: "end", outputs: [{ variable: "shouted", value_selector: ["t", "output"] }] },
        ],
        edges: [
          ["start", "t"],
          ["t", "end"],
        ],
      }),
    ),
  );
  const cfg = WeftConfigSchema.parse({
    http: { allowHosts: ["127.0.0.1"] },
    tools: {
      mcp: {
        replay: replayToolsStdio(),
        // biome-ignore lint/suspicious/noTemplateCurlyInString: ${VAR} placeholders the tools file interpolates
        units: { url: http.url, headers: { "x-test-key": "${WEFT_TEST_MCP_KEY}" } },
      },
      // biome-ignore lint/suspicious/noTemplateCurlyInString: ${VAR} placeholders the tools file interpolates
      openapi: { imgapi: { spec: api.specUrl, auth: { type: "bearer", token: "${WEFT_TEST_API_TOKEN}" } } },
      workflow: { shouter: { file: "shout.json", name: "shout" } },
      map: {
        "tavily/tavily_search": {
          tool: "replay/web_search",
          rename: { search_depth: "max_results" },
          set: { max_results: 3 },
        },
        "langgenius/audio/audio": "replay",
        "dalle/dalle3": "imgapi/generateImage",
      },
    },
  });
  services = await buildServices({
    http: cfg.http,
    files: { dir: join(dir, "files") },
    tools: cfg.tools,
    baseDir: dir,
  });
}, TIMEOUT);

afterAll(async () => {
  await services?.close();
  await http?.close();
  await api?.close();
});

describe("tools by configuration", () => {
  it("a stdio MCP server serves a Dify builtin tool through tools.map", { timeout: TIMEOUT }, async () => {
    const wf = oneTool(
      toolNode("search", "builtin", "tavily", "tavily_search", { query: "{{#start.q#}}", search_depth: "advanced" }),
      [input("q")],
    );
    const r = await runWorkflow(wf, { inputs: { q: "weft looms" }, services });
    expect(r.status).toBe("succeeded");
    const json = r.outputs.json as Array<{ organic_results: Array<{ title: string }> }>;
    expect(json[0]!.organic_results.map((x) => x.title)).toEqual([1, 2, 3].map((i) => `Result ${i} for weft looms`));
  });

  it("a whole Dify provider maps onto an MCP server; media content becomes files", { timeout: TIMEOUT }, async () => {
    const wf = oneTool(toolNode("tts", "builtin", "langgenius/audio/audio", "text_to_speech", { text: "hello" }));
    const r = await runWorkflow(wf, { inputs: {}, services });
    expect(r.status).toBe("succeeded");
    const files = r.outputs.files as Array<{ mime_type: string; size: number; filename: string }>;
    expect(files).toHaveLength(1);
    expect(files[0]!.mime_type).toBe("audio/wav");
    expect(files[0]!.size).toBeGreaterThan(44);
  });

  it("provider_type mcp reaches a streamable-HTTP server with headers from the environment", {
    timeout: TIMEOUT,
  }, async () => {
    const wf = oneTool(toolNode("conv", "mcp", "units", "convert", { value: 26.2, from: "mi", to: "km" }));
    const r = await runWorkflow(wf, { inputs: {}, services });
    expect(r.status).toBe("succeeded");
    // The server sends the object as structured content and as JSON text (as MCP asks): json holds it once.
    expect(r.outputs.json).toEqual([{ value: 42.165, unit: "km" }]);
    expect(http.calls).toContainEqual({ value: 26.2, from: "mi", to: "km" });
  });

  it("an MCP server's own argument checks reach the node as a typed failure", { timeout: TIMEOUT }, async () => {
    const wf = oneTool(toolNode("conv", "mcp", "units", "convert", { value: 1, from: "mi", to: "parsec" }));
    const r = await runWorkflow(wf, { inputs: {}, services });
    expect(r.status).toBe("failed");
    expect(r.error?.nodeId).toBe("conv");
    expect(r.error?.code).toMatch(/^tool\./);
    expect(r.error?.message).toContain("units/convert");
  });

  it("OpenAPI operations are tools: JSON body, path and query parameters, bearer auth", {
    timeout: TIMEOUT,
  }, async () => {
    const img = await runWorkflow(
      oneTool(toolNode("img", "api", "imgapi", "generateImage", { prompt: "a loom", size: "512" })),
      {
        inputs: {},
        services,
      },
    );
    expect(img.status).toBe("succeeded");
    expect((img.outputs.json as Array<Record<string, unknown>>)[0]).toMatchObject({
      prompt: "a loom",
      op: "/images/generate",
    });
    const post = api.requests.find((q) => q.path === "/images/generate")!;
    expect(post.headers.authorization).toBe("Bearer tok-456");
    expect(post.body).toEqual({ prompt: "a loom", size: "512" });

    const item = await runWorkflow(oneTool(toolNode("get", "api", "imgapi", "getItem", { id: "7", verbose: true })), {
      inputs: {},
      services,
    });
    expect(item.status).toBe("succeeded");
    expect((item.outputs.json as unknown[])[0]).toEqual({ id: 7, name: "item 7", verbose: true });
    expect(api.requests.find((q) => q.path === "/items/7")?.query).toEqual({ verbose: "true" });

    const mapped = await runWorkflow(
      oneTool(toolNode("d", "builtin", "dalle", "dalle3", { prompt: "warp and weft" })),
      { inputs: {}, services },
    );
    expect(mapped.status).toBe("succeeded");
    expect((mapped.outputs.json as Array<Record<string, unknown>>)[0]).toMatchObject({ prompt: "warp and weft" });
  });

  it("OpenAPI calls go through the HTTP guard: a loopback server the owner did not allow is refused", {
    timeout: TIMEOUT,
  }, async () => {
    const cfg = WeftConfigSchema.parse({ tools: { openapi: { imgapi: { spec: api.specUrl } } } });
    const guarded = await buildServices({
      http: cfg.http,
      files: { dir: join(dir, "files2") },
      tools: cfg.tools,
      baseDir: dir,
    });
    try {
      const r = await runWorkflow(oneTool(toolNode("img", "api", "imgapi", "generateImage", { prompt: "x" })), {
        inputs: {},
        services: guarded,
      });
      expect(r.status).toBe("failed");
      expect(r.error?.message).toMatch(/127\.0\.0\.1|private|loopback/);
      expect(
        api.requests.filter((q) => q.path === "/images/generate" && q.body && (q.body as any).prompt === "x"),
      ).toHaveLength(0);
    } finally {
      await guarded.close();
    }
  });

  it("a workflow file runs as a tool: start inputs are its parameters, end outputs its result", {
    timeout: TIMEOUT,
  }, async () => {
    const r = await runWorkflow(
      oneTool(toolNode("w", "workflow", "shouter", "shout", { words: "{{#start.w#}}" }), [input("w")]),
      {
        inputs: { w: "hello loom" },
        services,
      },
    );
    expect(r.status).toBe("succeeded");
    expect(r.outputs.text).toBe("HELLO LOOM!");
    expect((r.outputs.json as unknown[])[0]).toEqual({ shouted: "HELLO LOOM!" });
  });

  it("a workflow tool with a missing required parameter fails naming it", { timeout: TIMEOUT }, async () => {
    const r = await runWorkflow(oneTool(toolNode("w", "workflow", "shouter", "shout", {})), { inputs: {}, services });
    expect(r.status).toBe("failed");
    expect(r.error?.message).toContain("words");
  });

  it("agent and tool-call nodes are offered the configured tools with their schemas", {
    timeout: TIMEOUT,
  }, async () => {
    const specs = await services.tools.list();
    const conv = specs.find((s) => s.name === "units__convert");
    expect(conv?.parameters).toMatchObject({ properties: { value: { type: "number" } } });
    expect(specs.map((s) => s.name)).toEqual(
      expect.arrayContaining(["replay__web_search", "imgapi__getItem", "shouter__shout"]),
    );
    const viaSpec = await services.tools.invoke({
      providerId: "",
      toolName: "units__convert",
      parameters: { value: 10, from: "km", to: "mi" },
    });
    expect(viaSpec.json[0]).toEqual({ value: 6.214, unit: "mi" });
  });

  it("a tool nothing serves: a tool.unserved warning before running, a run-time error with the snippet", {
    timeout: TIMEOUT,
  }, async () => {
    const wf = oneTool(toolNode("s", "builtin", "langgenius/serper/serper", "serper", { query: "x" }));
    const warn = await unservedDiagnostics(wf, services.tools);
    expect(warn).toEqual([expect.objectContaining({ code: "tool.unserved", severity: "warning", nodeId: "s" })]);
    const checks = await checkToolUses(wf, services.tools);
    expect(checks[0]).toMatchObject({ providerId: "langgenius/serper/serper", toolName: "serper" });
    const r = await runWorkflow(wf, { inputs: {}, services });
    expect(r.status).toBe("failed");
    expect(r.error?.code).toBe("tool.not_configured");
    const msg = r.error!.message;
    expect(msg).toContain("langgenius/serper/serper/serper");
    expect(msg).not.toContain("registerExternalTool");
    const snippet = JSON.parse(msg.slice(msg.indexOf("{")));
    // The snippet is itself a valid tools section once its placeholders are filled.
    expect(WeftConfigSchema.safeParse(snippet).success).toBe(true);
    expect(snippet.tools.map["serper/serper"]).toBeDefined();
    // Mapped tools are served statically (no warning), and nothing was contacted to know it.
    expect(
      await unservedDiagnostics(oneTool(toolNode("t", "builtin", "tavily", "tavily_search", {})), services.tools),
    ).toEqual([]);
  });

  it("configuration mistakes are one error naming the path", () => {
    const bad = WeftConfigSchema.safeParse({ tools: { map: { "tavily/tavily_search": "nowhere/search" } } });
    expect(bad.success).toBe(false);
    expect(bad.error!.issues[0]!.path).toEqual(["tools", "map", "tavily/tavily_search"]);
    const dup = WeftConfigSchema.safeParse({
      tools: { mcp: { a: { command: "x" } }, workflow: { a: { file: "f.yml" } } },
    });
    expect(dup.error!.issues[0]!.message).toContain("also configured");
    expect(readFileSync(join(dir, "shout.json"), "utf8")).toContain("shouted");
  });
});
