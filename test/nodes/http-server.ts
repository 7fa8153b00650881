/** A small HTTP server on 127.0.0.1 for the http-request tests: echo, status codes, files, redirects, delays. */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface Received {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

export interface TestServer {
  base: string;
  port: number;
  received: Received[];
  close(): Promise<void>;
}

export const PNG = Buffer.from(
  "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082",
  "hex",
);

async function body(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

export async function startTestServer(): Promise<TestServer> {
  const received: Received[] = [];
  const handler = async (req: IncomingMessage, res: ServerResponse) => {
    const b = await body(req);
    received.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body: b });
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const path = url.pathname;
    if (path === "/echo") {
      res.setHeader("content-type", "application/json; charset=utf-8");
      res.setHeader("x-test", "yes");
      res.end(JSON.stringify({ method: req.method, url: req.url, headers: req.headers, body: b.toString("utf8") }));
    } else if (path.startsWith("/status/")) {
      res.statusCode = Number(path.slice(8));
      res.setHeader("content-type", "text/plain");
      res.end(`status ${res.statusCode}`);
    } else if (path === "/png") {
      res.setHeader("content-type", "image/png");
      res.end(PNG);
    } else if (path === "/download") {
      res.setHeader("content-type", "application/octet-stream");
      res.setHeader("content-disposition", 'attachment; filename="report.bin"');
      res.end(Buffer.from([0, 1, 2, 3, 255]));
    } else if (path === "/big") {
      res.setHeader("content-type", "text/plain");
      res.end("x".repeat(Number(url.searchParams.get("n") ?? 2_000_000)));
    } else if (path === "/redirect") {
      res.statusCode = Number(url.searchParams.get("code") ?? 302);
      res.setHeader("location", url.searchParams.get("to") ?? "/echo");
      res.end();
    } else if (path === "/slow") {
      const ms = Number(url.searchParams.get("ms") ?? 2000);
      await new Promise((r) => setTimeout(r, ms));
      res.end("late");
    } else if (path === "/gbk") {
      res.setHeader("content-type", "text/plain; charset=gbk");
      res.end(Buffer.from([0xc4, 0xe3, 0xba, 0xc3])); // 你好
    } else {
      res.statusCode = 404;
      res.end("not found");
    }
  };
  const server: Server = createServer((req, res) => {
    handler(req, res).catch((e) => {
      res.statusCode = 500;
      res.end(String(e));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const port = (server.address() as AddressInfo).port;
  return {
    base: `http://127.0.0.1:${port}`,
    port,
    received,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
