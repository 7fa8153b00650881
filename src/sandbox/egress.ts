import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import { connect, isIP, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Duplex } from "node:stream";
import { WeftError } from "../ir/errors.js";

/**
 * The jail's only way to the network: an HTTP proxy (CONNECT for TLS, absolute-form requests for plain
 * HTTP) that listens on a Unix socket bound into each jail. Every target host is resolved and vetted by
 * the same address policy as the HTTP request node before a connection is made, and the connection goes
 * to the vetted address, so a guest can reach exactly what a workflow's HTTP node could.
 */

/** Resolves a host and throws a typed error when any of its addresses may not be reached. */
export type VetHost = (host: string) => Promise<Array<{ address: string; family: number }>>;

export interface EgressOptions {
  /** Idle time after which a tunnel or request is closed. */
  idleMs?: number;
  /** Connections served at once by one channel; more are refused with 503. */
  maxConnections?: number;
}

/** A request the address policy refused: what the guest was told, kept for the node's typed error. */
export interface EgressRefusal {
  host: string;
  code: string;
  message: string;
}

/** Headers the proxy puts on its own refusals; stripped from upstream replies so no server can fake one. */
export const EGRESS_ERROR_HEADER = "x-weft-error";
export const EGRESS_MESSAGE_HEADER = "x-weft-error-message";

/**
 * One listening socket of the proxy. Each sandbox call gets a channel of its own, so the refusals its guest
 * met are known when the call ends (the code node then fails with the policy's reason, not a bare 403).
 */
export class EgressChannel {
  readonly refusals: EgressRefusal[] = [];
  private readonly sockets = new Set<Socket>();
  private readonly server: Server;

  constructor(
    vet: VetHost,
    readonly socketPath: string,
    opts: EgressOptions,
  ) {
    const server = createServer();
    this.server = server;
    const idleMs = opts.idleMs ?? 60_000;
    const max = opts.maxConnections ?? 64;
    const refused = (r: EgressRefusal) => {
      if (this.refusals.length < 32) this.refusals.push(r);
    };
    server.on("connection", (s: Socket) => {
      s.setTimeout(idleMs, () => s.destroy());
      this.sockets.add(s);
      s.once("close", () => this.sockets.delete(s));
      if (this.sockets.size > max) s.end("HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\n\r\n");
    });
    server.on("connect", (req: IncomingMessage, client: Duplex, head: Buffer) => {
      tunnel(vet, req, client, head, idleMs, refused).catch(() => client.destroy());
    });
    server.on("request", (req: IncomingMessage, res: ServerResponse) => {
      forward(vet, req, res, idleMs, refused).catch(() => res.destroy());
    });
  }

  async listen(): Promise<this> {
    await new Promise<void>((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(this.socketPath, () => resolve());
    });
    chmodSync(this.socketPath, 0o666);
    this.server.unref(); // a sandbox that is never used again must not keep the process alive
    return this;
  }

  /** Stops listening and ends every connection, tunnels included (a guest's jail is gone by then). */
  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const s of this.sockets) s.destroy();
    await closed;
    rmSync(this.socketPath, { force: true });
  }
}

export class EgressProxy {
  private next = 0;

  private constructor(
    private readonly vet: VetHost,
    private readonly dir: string,
    private readonly opts: EgressOptions,
    private readonly shared: EgressChannel,
  ) {}

  static async start(vet: VetHost, opts: EgressOptions = {}): Promise<EgressProxy> {
    // Reachable by every guest's uid: the directory is searchable, each socket writable by all. Only a
    // jail that binds one in (or a local process, which could connect anywhere anyway) can use it.
    const dir = mkdtempSync(join(tmpdir(), "weft-egress-"));
    chmodSync(dir, 0o711);
    process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
    const shared = await new EgressChannel(vet, join(dir, "egress.sock"), opts).listen();
    return new EgressProxy(vet, dir, opts, shared);
  }

  /** The proxy's long-lived socket (for callers that need no per-call refusals). */
  get socketPath(): string {
    return this.shared.socketPath;
  }

  /** A socket of its own for one sandbox call; close it when the call ends. */
  openChannel(): Promise<EgressChannel> {
    return new EgressChannel(this.vet, join(this.dir, `c${++this.next}.sock`), this.opts).listen();
  }

  async close(): Promise<void> {
    await this.shared.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** `host:port` of a CONNECT request (IPv6 in brackets). */
function splitAuthority(authority: string | undefined): { host: string; port: number } | undefined {
  const m = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(authority ?? "");
  const port = Number(m?.[3]);
  const host = m?.[1] ?? m?.[2];
  if (!host || !(port > 0 && port < 65536)) return undefined;
  return { host, port };
}

function refusal(err: unknown): { status: number; code: string; message: string } {
  if (err instanceof WeftError) {
    const status = err.code === "http.blocked_address" ? 403 : err.code === "http.dns_failed" ? 502 : 400;
    return { status, code: err.code, message: err.message };
  }
  return { status: 502, code: "egress.connect_failed", message: (err as Error).message };
}

/** A header value that cannot break the reply: printable ASCII only. */
function headerText(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, "?").slice(0, 500);
}

function rawReply(client: Duplex, status: number, code: string, message: string): void {
  const body = `${message}\n`;
  client.end(
    `HTTP/1.1 ${status} ${status === 403 ? "Forbidden" : status === 400 ? "Bad Request" : "Bad Gateway"}\r\n` +
      `X-Weft-Error: ${code}\r\nX-Weft-Error-Message: ${headerText(message)}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

type OnRefused = (r: EgressRefusal) => void;

async function tunnel(
  vet: VetHost,
  req: IncomingMessage,
  client: Duplex,
  head: Buffer,
  idleMs: number,
  refused: OnRefused,
) {
  const target = splitAuthority(req.url);
  if (!target) return rawReply(client, 400, "egress.bad_request", `CONNECT needs host:port, got ${req.url}`);
  let address: string;
  try {
    address = (await vet(target.host))[0]?.address ?? "";
  } catch (err) {
    const r = refusal(err);
    refused({ host: target.host, code: r.code, message: r.message });
    return rawReply(client, r.status, r.code, r.message);
  }
  const upstream = connect({ host: address, port: target.port });
  upstream.setTimeout(idleMs, () => upstream.destroy());
  upstream.once("connect", () => {
    client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
    if (head.length) upstream.write(head);
    upstream.pipe(client);
    client.pipe(upstream);
  });
  upstream.once("error", (err) => {
    if (upstream.connecting) rawReply(client, 502, "egress.connect_failed", err.message);
    else client.destroy();
  });
  client.once("error", () => upstream.destroy());
  client.once("close", () => upstream.destroy());
}

async function forward(vet: VetHost, req: IncomingMessage, res: ServerResponse, idleMs: number, refused: OnRefused) {
  const fail = (status: number, code: string, message: string) => {
    res.writeHead(status, {
      "X-Weft-Error": code,
      "X-Weft-Error-Message": headerText(message),
      "Content-Type": "text/plain; charset=utf-8",
      Connection: "close",
    });
    res.end(`${message}\n`);
  };
  let url: URL;
  try {
    url = new URL(req.url ?? "");
  } catch {
    return fail(400, "egress.bad_request", "a proxy request needs an absolute http:// URL");
  }
  if (url.protocol !== "http:")
    return fail(400, "egress.bad_request", "only http:// is forwarded; use CONNECT for https");
  const host = url.hostname.replace(/^\[|\]$/g, "");
  let address: string;
  try {
    address = (await vet(host))[0]?.address ?? "";
  } catch (err) {
    const r = refusal(err);
    refused({ host, code: r.code, message: r.message });
    return fail(r.status, r.code, r.message);
  }
  const headers: Record<string, string | string[] | undefined> = { ...req.headers, host: url.host };
  delete headers["proxy-connection"];
  delete headers["proxy-authorization"];
  const upstream = httpRequest({
    host: address,
    family: isIP(address),
    port: url.port || 80,
    method: req.method,
    path: `${url.pathname}${url.search}`,
    headers,
    timeout: idleMs,
  });
  upstream.on("response", (up) => {
    const raw: string[] = [];
    for (let i = 0; i + 1 < up.rawHeaders.length; i += 2) {
      const name = up.rawHeaders[i]!.toLowerCase();
      if (name !== EGRESS_ERROR_HEADER && name !== EGRESS_MESSAGE_HEADER)
        raw.push(up.rawHeaders[i]!, up.rawHeaders[i + 1]!);
    }
    res.writeHead(up.statusCode ?? 502, raw);
    up.pipe(res);
  });
  upstream.on("timeout", () => upstream.destroy(new Error("upstream timed out")));
  upstream.on("error", (err) => {
    if (!res.headersSent) fail(502, "egress.connect_failed", err.message);
    else res.destroy();
  });
  req.pipe(upstream);
}
