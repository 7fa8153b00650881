/**
 * A streamable-HTTP MCP server on 127.0.0.1 whose one tool, `give`, answers with whatever the test queued:
 * a result the official SDK server sends as it is (`sdk`), or, for what the SDK server would never send,
 * the JSON-RPC result written by hand (`raw`, JSON text of any depth or with any keys) or a whole HTTP
 * response body (`body`: invalid JSON, invalid UTF-8, a wrong content type). Initialisation and listing
 * always go through the SDK server, so the client under test speaks to a real MCP server throughout.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";

export type McpReply =
  | { sdk: Record<string, unknown> }
  | { raw: string }
  /** The whole HTTP body, given the request's JSON-RPC id as JSON text (so a reply can match it or not). */
  | { body: (id: string) => Uint8Array | string; contentType?: string };

export interface HostileMcp {
  url: string;
  /** The reply to the next tools/call (and every one after, until replaced). */
  reply(r: McpReply): void;
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (d: Buffer) => chunks.push(d));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

export async function startHostileMcp(): Promise<HostileMcp> {
  let next: McpReply = { sdk: { content: [{ type: "text", text: "ok" }] } };
  const server: Server = createServer(async (req, res) => {
    const raw = await readBody(req);
    const message = raw ? (JSON.parse(raw) as { method?: string; id?: unknown }) : undefined;
    if (message?.method === "tools/call" && !("sdk" in next)) {
      if ("raw" in next) {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(`{"jsonrpc":"2.0","id":${JSON.stringify(message.id)},"result":${next.raw}}`);
      } else {
        res.writeHead(200, { "content-type": next.contentType ?? "application/json" });
        res.end(next.body(JSON.stringify(message.id)));
      }
      return;
    }
    const mcp = new McpServer({ name: "hostile", version: "1.0.0" });
    mcp.registerTool("give", { description: "Answers with the queued result", inputSchema: {} }, async () => {
      if (!("sdk" in next)) throw new Error("no SDK reply queued");
      return next.sdk as { content: Array<{ type: "text"; text: string }> };
    });
    // Stateless: one server and transport per request, as the SDK's stateless example does.
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on("close", () => {
      void transport.close();
      void mcp.close();
    });
    await mcp.connect(transport);
    await transport.handleRequest(req, res, message);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  return {
    url,
    reply: (r) => {
      next = r;
    },
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
