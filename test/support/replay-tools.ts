/**
 * Test tools served the way a user serves tools: an MCP server (official SDK) offering web search, page
 * reading, text-to-speech (a real WAV), text-to-image (a real PNG), speech-to-text and a generic `replay`
 * tool; and an OpenAPI document with operations, served on 127.0.0.1 by `startOpenApiServer`. Tests and
 * benches configure them in a weft.config.json (tools.mcp / tools.openapi / tools.map), so the path a user
 * takes is the path tested. Run this file directly for the stdio server:
 *   node --import tsx test/support/replay-tools.ts
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";
import { svgToPng } from "../../src/tools/render/raster.js";

/** A short valid WAV: 16-bit mono PCM, a 440 Hz tone. */
export function wavBytes(seconds = 0.2, rate = 8000): Uint8Array {
  const n = Math.round(seconds * rate);
  const buf = Buffer.alloc(44 + 2 * n);
  buf.write("RIFF", 0);
  buf.writeUInt32LE(36 + 2 * n, 4);
  buf.write("WAVEfmt ", 8);
  buf.writeUInt32LE(16, 16);
  buf.writeUInt16LE(1, 20);
  buf.writeUInt16LE(1, 22);
  buf.writeUInt32LE(rate, 24);
  buf.writeUInt32LE(2 * rate, 28);
  buf.writeUInt16LE(2, 32);
  buf.writeUInt16LE(16, 34);
  buf.write("data", 36);
  buf.writeUInt32LE(2 * n, 40);
  for (let i = 0; i < n; i++) buf.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / rate)), 44 + 2 * i);
  return new Uint8Array(buf);
}

const xmlEscape = (s: string) => s.replace(/[<>&"]/g, (c) => `&#${c.charCodeAt(0)};`);

export function pngOf(text: string): Uint8Array {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="256" height="256"><rect width="256" height="256" fill="#dde"/><text x="8" y="128" font-size="12">${xmlEscape(text.slice(0, 60))}</text></svg>`;
  return svgToPng(svg);
}

const text = (t: string) => ({ type: "text" as const, text: t });

export function searchResults(q: string) {
  return [1, 2, 3].map((i) => ({
    position: i,
    title: `Result ${i} for ${q}`,
    link: `https://example.org/${i}`,
    url: `https://example.org/${i}`,
    snippet: `Replayed search snippet ${i} about ${q}.`,
    content: `Replayed search snippet ${i} about ${q}.`,
  }));
}

/** The MCP server of the replay tools (one instance per connection). */
export function createReplayToolsServer(): McpServer {
  const mcp = new McpServer({ name: "weft-replay-tools", version: "0.1.0" });
  mcp.registerTool(
    "web_search",
    {
      description: "Search the web; answers three results as JSON",
      inputSchema: { query: z.string(), max_results: z.number().optional() },
    },
    async ({ query }) => {
      const organic = searchResults(query);
      return {
        content: [text(JSON.stringify({ organic_results: organic, search_results: organic, results: organic }))],
      };
    },
  );
  mcp.registerTool(
    "read_page",
    { description: "Fetch a page as Markdown", inputSchema: { url: z.string() } },
    async ({ url }) => ({
      content: [text(`# Page ${url}\n\nReplayed content of ${url}: a paragraph about the topic.`)],
    }),
  );
  mcp.registerTool(
    "text_to_speech",
    { description: "Speak a text; answers a WAV file", inputSchema: { text: z.string() } },
    async ({ text: t }) => {
      if (!t.trim()) return { isError: true, content: [text("text is empty")] };
      return {
        content: [{ type: "audio" as const, data: Buffer.from(wavBytes()).toString("base64"), mimeType: "audio/wav" }],
      };
    },
  );
  mcp.registerTool(
    "text_to_image",
    { description: "Draw a picture of the prompt; answers a PNG file", inputSchema: { prompt: z.string() } },
    async ({ prompt }) => ({
      content: [{ type: "image" as const, data: Buffer.from(pngOf(prompt)).toString("base64"), mimeType: "image/png" }],
    }),
  );
  mcp.registerTool(
    "speech_to_text",
    { description: "Transcribe audio", inputSchema: { audio: z.unknown().optional() } },
    async () => ({ content: [text("Replayed transcript of the audio.")] }),
  );
  mcp.registerTool(
    "replay",
    {
      description: "Answers its arguments back (a stand-in for a tool this machine cannot reach)",
      inputSchema: z.object({}).passthrough(),
    },
    async (args) => ({ content: [text(JSON.stringify({ replayed: true, arguments: args }))] }),
  );
  return mcp;
}

/** An OpenAPI 3 document of image and audio operations (Dify custom API tools of the corpus use these ids). */
export function openApiDocument(baseURL: string): Record<string, unknown> {
  const op = (operationId: string, props: Record<string, unknown>, required: string[]) => ({
    post: {
      operationId,
      summary: `${operationId} (test API)`,
      requestBody: {
        required: true,
        content: { "application/json": { schema: { type: "object", properties: props, required } } },
      },
      responses: { "200": { description: "ok" } },
    },
  });
  return {
    openapi: "3.0.3",
    info: { title: "Weft test API", version: "1.0.0" },
    servers: [{ url: baseURL }],
    paths: {
      "/images/generate": op("generateImage", { prompt: { type: "string" }, size: { type: "string" } }, ["prompt"]),
      "/images/edit": op("editImage", { prompt: { type: "string" }, image_url: { type: "string" } }, ["prompt"]),
      "/images/hidream": op("generateHiDreamE1Image", { prompt: { type: "string" } }, []),
      "/images/hidream-e1": op("difyforgiteegenerate-HiDream-E1_post", { prompt: { type: "string" } }, []),
      "/audio/generate": op("generate-audio_post", { text: { type: "string" }, voice: { type: "string" } }, []),
      "/items/{id}": {
        get: {
          operationId: "getItem",
          parameters: [
            { name: "id", in: "path", required: true, schema: { type: "integer" } },
            { name: "verbose", in: "query", schema: { type: "boolean" } },
          ],
          responses: { "200": { description: "ok" } },
        },
      },
    },
  };
}

export interface OpenApiServer {
  url: string;
  specUrl: string;
  /** Requests received: method, path, query, headers, JSON body. */
  requests: Array<{
    method: string;
    path: string;
    query: Record<string, string>;
    headers: Record<string, string>;
    body: unknown;
  }>;
  close(): Promise<void>;
}

/** Serves the OpenAPI document at /openapi.json and answers its operations, on a free loopback port. */
/** `host`: a loopback address of its own (127.0.0.2 …) lets a config allow exactly this server in http.allowHosts. */
export async function startOpenApiServer(opts: { token?: string; host?: string } = {}): Promise<OpenApiServer> {
  const requests: OpenApiServer["requests"] = [];
  let base = "";
  const server: Server = createServer((req, res) => {
    let raw = "";
    req.on("data", (d) => (raw += d));
    req.on("end", () => {
      const u = new URL(req.url ?? "/", base);
      let body: unknown;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        body = raw;
      }
      requests.push({
        method: req.method ?? "",
        path: u.pathname,
        query: Object.fromEntries(u.searchParams),
        headers: req.headers as Record<string, string>,
        body,
      });
      const send = (status: number, v: unknown) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify(v));
      };
      if (u.pathname === "/openapi.json") return send(200, openApiDocument(base));
      if (opts.token && req.headers.authorization !== `Bearer ${opts.token}`)
        return send(401, { error: "unauthorised" });
      const b = (body ?? {}) as Record<string, unknown>;
      if (u.pathname.startsWith("/images/"))
        return send(200, { url: `${base}/files/image.png`, prompt: b.prompt ?? null, op: u.pathname });
      if (u.pathname === "/audio/generate") return send(200, { url: `${base}/files/audio.wav`, text: b.text ?? null });
      const m = /^\/items\/(\d+)$/.exec(u.pathname);
      if (m)
        return send(200, { id: Number(m[1]), name: `item ${m[1]}`, verbose: u.searchParams.get("verbose") === "true" });
      return send(404, { error: `no route ${u.pathname}` });
    });
  });
  const host = opts.host ?? "127.0.0.1";
  await new Promise<void>((r) => server.listen(0, host, r));
  base = `http://${host}:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    specUrl: `${base}/openapi.json`,
    requests,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

/** `tools.mcp` entry that starts this file as a stdio MCP server. */
export function replayToolsStdio(): { command: string; args: string[] } {
  // tsx by its resolved URL: the server starts in the config's directory, which has no node_modules.
  return {
    command: process.execPath,
    args: ["--import", import.meta.resolve("tsx"), new URL(import.meta.url).pathname],
  };
}

if (process.argv[1] && new URL(import.meta.url).pathname === process.argv[1]) {
  await createReplayToolsServer().connect(new StdioServerTransport());
}
