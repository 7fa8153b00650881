import type { LookupAddress } from "node:dns";
import { isIP } from "node:net";
import type { Agent } from "undici";
import { WeftError } from "../ir/errors.js";
import type { HttpRequestSpec, HttpResponseData, HttpService } from "../ir/services.js";

type Undici = Pick<typeof import("undici"), "Agent" | "FormData" | "fetch">;
let undiciModule: Promise<Undici> | undefined;
// undici (a large client) loads with the first request, not with every command that builds services.
const loadUndici = (): Promise<Undici> =>
  (undiciModule ??= import("undici").then(({ Agent, FormData, fetch }) => ({ Agent, FormData, fetch })));

/** Errors of the outbound HTTP client; codes are `http.*`. */
export class HttpError extends WeftError {}

export interface HttpServiceOptions {
  /** Let the workflow owner reach loopback, private, link-local and metadata addresses. */
  allowPrivate?: boolean;
  /** Hosts (exact names), IP addresses or CIDR ranges that may be reached even though private. */
  allowHosts?: string[];
  /** Redirects followed per request; each target is checked again. */
  maxRedirects?: number;
  /** Default body cap when the request names none. */
  maxResponseBytes?: number;
  /** DNS resolver, replaceable so tests can point a name at a chosen address. */
  resolve?: (host: string) => Promise<Array<{ address: string; family: number }>>;
}

// ---------------------------------------------------------------------------------------------
// Address classification

type Range = { bytes: number[]; prefix: number };

function parseIPv4(s: string): number[] | undefined {
  const parts = s.split(".");
  if (parts.length !== 4) return undefined;
  const out: number[] = [];
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p)) return undefined;
    const n = Number(p);
    if (n > 255) return undefined;
    out.push(n);
  }
  return out;
}

/** 16 bytes of an IPv6 address (accepts `::`, an embedded dotted quad and a `%zone`). */
function parseIPv6(raw: string): number[] | undefined {
  let s = raw.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  if (isIP(s) !== 6) return undefined;
  const lastColon = s.lastIndexOf(":");
  const tail = s.slice(lastColon + 1);
  if (tail.includes(".")) {
    const v4 = parseIPv4(tail);
    if (!v4) return undefined;
    const hex = (a: number, b: number) => ((a << 8) | b).toString(16);
    s = `${s.slice(0, lastColon + 1)}${hex(v4[0] as number, v4[1] as number)}:${hex(v4[2] as number, v4[3] as number)}`;
  }
  const halves = s.split("::");
  if (halves.length > 2) return undefined;
  const toGroups = (x: string | undefined) => (x ? x.split(":").filter((g) => g.length > 0) : []);
  const l = toGroups(halves[0]);
  const r = toGroups(halves[1]);
  const groups = halves.length === 2 ? [...l, ...Array(8 - l.length - r.length).fill("0"), ...r] : l;
  if (groups.length !== 8) return undefined;
  const bytes: number[] = [];
  for (const g of groups) {
    const n = Number.parseInt(g, 16);
    if (Number.isNaN(n) || n > 0xffff) return undefined;
    bytes.push((n >> 8) & 0xff, n & 0xff);
  }
  return bytes;
}

function inRange(bytes: number[], range: Range): boolean {
  if (bytes.length !== range.bytes.length) return false;
  let bits = range.prefix;
  for (let i = 0; i < bytes.length && bits > 0; i++) {
    const take = Math.min(8, bits);
    const mask = (0xff << (8 - take)) & 0xff;
    if (((bytes[i] as number) & mask) !== ((range.bytes[i] as number) & mask)) return false;
    bits -= take;
  }
  return true;
}

function cidr(s: string): Range {
  const [addr, len] = s.split("/") as [string, string];
  const bytes = parseIPv4(addr) ?? parseIPv6(addr);
  if (!bytes) throw new Error(`bad range ${s}`);
  return { bytes, prefix: Number(len) };
}

/** Targets no workflow may reach by default: loopback, private, link-local, unique-local, metadata... */
const BLOCKED_V4_CIDRS = [
  "0.0.0.0/8",
  "10.0.0.0/8",
  "100.64.0.0/10",
  "127.0.0.0/8",
  "169.254.0.0/16",
  "172.16.0.0/12",
  "192.0.0.0/24",
  "192.0.2.0/24",
  "192.88.99.0/24",
  "192.168.0.0/16",
  "198.18.0.0/15",
  "198.51.100.0/24",
  "203.0.113.0/24",
  "224.0.0.0/4",
  "240.0.0.0/4",
];

const BLOCKED_V6_CIDRS = [
  "::/128",
  "::1/128",
  "fe80::/10",
  "fec0::/10",
  "fc00::/7",
  "ff00::/8",
  "100::/64",
  "2001:db8::/32",
];

/** IPv6 forms that carry an IPv4 address, which is then what gets reached. */
const EMBEDS_V4_CIDRS: Array<[string, number]> = [
  ["::ffff:0:0/96", 12], // IPv4-mapped
  ["::/96", 12], // IPv4-compatible (deprecated)
  ["64:ff9b::/96", 12], // NAT64
  ["64:ff9b:1::/48", 12], // local-use NAT64
  ["2002::/16", 2], // 6to4
];

interface BlockedRanges {
  v4: Range[];
  v6: Range[];
  embedsV4: Array<{ range: Range; offset: number }>;
}
let blockedRanges: BlockedRanges | undefined;
// Parsed on the first address checked, not when the module loads: every command that builds services loads this
// module, and the first IPv6 parse (node's isIP) costs a few ms that a run without an HTTP request never needs.
const blocked = (): BlockedRanges =>
  (blockedRanges ??= {
    v4: BLOCKED_V4_CIDRS.map(cidr),
    v6: BLOCKED_V6_CIDRS.map(cidr),
    embedsV4: EMBEDS_V4_CIDRS.map(([range, offset]) => ({ range: cidr(range), offset })),
  });

/** Why an address may not be reached, or undefined when it is a public address. */
export function blockedReason(address: string): string | undefined {
  const ranges = blocked();
  const v4 = parseIPv4(address);
  if (v4) {
    const hit = ranges.v4.find((r) => inRange(v4, r));
    return hit ? `${address} is in a reserved or private range` : undefined;
  }
  const v6 = parseIPv6(address);
  if (!v6) return `${address} is not an IP address`;
  if (ranges.v6.some((r) => inRange(v6, r))) return `${address} is in a reserved or private range`;
  for (const e of ranges.embedsV4) {
    if (inRange(v6, e.range)) {
      const inner = v6.slice(e.offset, e.offset + 4).join(".");
      const why = blockedReason(inner);
      if (why) return `${address} embeds ${inner}: ${why}`;
    }
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Policy

class AddressPolicy {
  private readonly hostNames = new Set<string>();
  private readonly ranges: Range[] = [];
  constructor(private readonly opts: HttpServiceOptions) {
    for (const entry of opts.allowHosts ?? []) {
      const e = entry.trim().toLowerCase();
      if (e.includes("/")) this.ranges.push(cidr(e));
      else if (parseIPv4(e) || parseIPv6(e)) this.ranges.push(cidr(`${e}/${parseIPv4(e) ? 32 : 128}`));
      else this.hostNames.add(e);
    }
  }

  hostAllowed(host: string): boolean {
    return this.opts.allowPrivate === true || this.hostNames.has(host.toLowerCase());
  }

  check(host: string, address: string): void {
    if (this.hostAllowed(host)) return;
    const why = blockedReason(address);
    if (!why) return;
    const bytes = parseIPv4(address) ?? parseIPv6(address);
    if (bytes && this.ranges.some((r) => inRange(bytes, r))) return;
    throw new HttpError("http.blocked_address", `refusing to reach ${host}: ${why}`, { host, address });
  }
}

// ---------------------------------------------------------------------------------------------
// Client

const DEFAULT_MAX_BYTES = 10 * 1024 * 1024;

function timeoutError(phase: string, ms: number, url: string): HttpError {
  return new HttpError("http.timeout", `request to ${url} timed out (${phase} after ${ms} ms)`, {
    phase,
    timeoutMs: ms,
  });
}

function causeCode(err: unknown): string | undefined {
  let e: unknown = err;
  for (let i = 0; i < 5 && e && typeof e === "object"; i++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string") return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

function findWeftError(err: unknown): WeftError | undefined {
  let e: unknown = err;
  for (let i = 0; i < 5 && e; i++) {
    if (e instanceof WeftError) return e;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

async function readCapped(body: ReadableStream<Uint8Array> | null, max: number, url: string): Promise<Uint8Array> {
  if (!body) return new Uint8Array();
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > max) {
      await reader.cancel().catch(() => {});
      throw new HttpError("http.response_too_large", `response from ${url} is larger than ${max} bytes`, {
        maxBytes: max,
      });
    }
    chunks.push(value);
  }
  const out = new Uint8Array(total);
  let off = 0;
  for (const c of chunks) {
    out.set(c, off);
    off += c.byteLength;
  }
  return out;
}

/**
 * Outbound HTTP for http-request nodes and HTTP tools. Every hop of a request (the first URL and each
 * redirect) is resolved and every resolved address checked before a connection is made, and the
 * connection itself goes through the same checked lookup, so a DNS answer cannot change in between.
 */
export class GuardedHttpService implements HttpService {
  private readonly policy: AddressPolicy;
  private readonly resolve: NonNullable<HttpServiceOptions["resolve"]>;

  constructor(private readonly opts: HttpServiceOptions = {}) {
    this.policy = new AddressPolicy(opts);
    // node:dns/promises loads with the first lookup: a run without an HTTP request never needs it (start-up).
    this.resolve =
      opts.resolve ?? (async (host) => (await import("node:dns/promises")).lookup(host, { all: true, verbatim: true }));
  }

  /** Resolve `host` and check every address; returns the addresses to connect to. */
  async vet(host: string): Promise<Array<{ address: string; family: number }>> {
    const bare = host.replace(/^\[|\]$/g, "");
    if (isIP(bare)) {
      this.policy.check(host, bare);
      return [{ address: bare, family: isIP(bare) }];
    }
    let addrs: Array<{ address: string; family: number }>;
    try {
      addrs = await this.resolve(bare);
    } catch (err) {
      throw new HttpError("http.dns_failed", `cannot resolve ${host}: ${(err as Error).message}`, { host });
    }
    if (addrs.length === 0) throw new HttpError("http.dns_failed", `cannot resolve ${host}: no addresses`, { host });
    for (const a of addrs) this.policy.check(bare, a.address);
    return addrs;
  }

  private agentFor(undici: Undici, req: HttpRequestSpec, pinned: Array<{ address: string; family: number }>): Agent {
    const connectMs = req.timeouts?.connectMs ?? req.timeoutMs;
    const readMs = req.timeouts?.readMs ?? req.timeoutMs;
    return new undici.Agent({
      connectTimeout: connectMs,
      headersTimeout: readMs,
      bodyTimeout: readMs,
      connect: {
        rejectUnauthorized: req.sslVerify !== false,
        // Connect only to the addresses vetted for this hop.
        lookup: (_hostname: string, options: { all?: boolean } | number, cb: unknown) => {
          const callback = (typeof options === "function" ? options : cb) as (
            err: Error | null,
            address: string | LookupAddress[],
            family?: number,
          ) => void;
          const all = typeof options === "object" && options !== null && options.all === true;
          const first = pinned[0] as { address: string; family: number };
          if (all)
            callback(
              null,
              pinned.map((p) => ({ address: p.address, family: p.family })),
            );
          else callback(null, first.address, first.family);
        },
      } as Record<string, unknown>,
    });
  }

  async request(req: HttpRequestSpec): Promise<HttpResponseData> {
    const maxBytes = req.maxResponseBytes ?? this.opts.maxResponseBytes ?? DEFAULT_MAX_BYTES;
    const maxRedirects = this.opts.maxRedirects ?? 5;
    const overallMs =
      req.timeouts !== undefined
        ? (req.timeouts.connectMs ?? 0) + (req.timeouts.readMs ?? 0) + (req.timeouts.writeMs ?? 0) || req.timeoutMs
        : req.timeoutMs;
    const timer = new AbortController();
    const timeout = setTimeout(() => timer.abort(), overallMs);
    const signal = req.signal ? AbortSignal.any([req.signal, timer.signal]) : timer.signal;
    let method = req.method.toUpperCase();
    let body = req.body;
    let url: URL;
    try {
      url = new URL(req.url);
    } catch {
      clearTimeout(timeout);
      throw new HttpError("http.invalid_url", `not a valid URL: ${req.url}`, { url: req.url });
    }
    try {
      const undici = await loadUndici();
      for (let hop = 0; ; hop++) {
        if (url.protocol !== "http:" && url.protocol !== "https:") {
          throw new HttpError("http.invalid_url", `only http and https URLs are allowed, got ${url.protocol}`, {
            url: url.href,
          });
        }
        const pinned = await this.vet(url.hostname);
        const agent = this.agentFor(undici, req, pinned);
        let res: Awaited<ReturnType<Undici["fetch"]>>;
        try {
          res = await undici.fetch(url, {
            method,
            headers: req.headers,
            body: method === "GET" || method === "HEAD" ? undefined : (toUndiciBody(undici, body) as never),
            redirect: "manual",
            signal,
            dispatcher: agent,
          });
        } catch (err) {
          await agent.close().catch(() => {});
          throw this.translate(err, url.href, req, timer.signal, overallMs);
        }
        const location = res.headers.get("location");
        if (res.status >= 300 && res.status < 400 && location && res.status !== 304) {
          await res.body?.cancel().catch(() => {});
          await agent.close().catch(() => {});
          if (hop >= maxRedirects) {
            throw new HttpError("http.too_many_redirects", `more than ${maxRedirects} redirects from ${req.url}`, {
              url: req.url,
            });
          }
          // 303, and 301/302 after POST, turn into GET without a body, as browsers and httpx do.
          if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === "POST")) {
            method = "GET";
            body = undefined;
          }
          url = new URL(location, url);
          continue;
        }
        try {
          const bytes = await readCapped(res.body as ReadableStream<Uint8Array> | null, maxBytes, url.href);
          const headers: Record<string, string> = {};
          res.headers.forEach((v, k) => {
            headers[k] = v;
          });
          return { status: res.status, headers, body: bytes };
        } catch (err) {
          throw this.translate(err, url.href, req, timer.signal, overallMs);
        } finally {
          await agent.close().catch(() => {});
        }
      }
    } finally {
      clearTimeout(timeout);
    }
  }

  private translate(err: unknown, url: string, req: HttpRequestSpec, timerSignal: AbortSignal, overallMs: number) {
    const own = findWeftError(err);
    if (own) return own;
    const code = causeCode(err);
    if (code === "UND_ERR_CONNECT_TIMEOUT")
      return timeoutError("connect", req.timeouts?.connectMs ?? req.timeoutMs, url);
    if (code === "UND_ERR_HEADERS_TIMEOUT" || code === "UND_ERR_BODY_TIMEOUT") {
      return timeoutError("read", req.timeouts?.readMs ?? req.timeoutMs, url);
    }
    if (timerSignal.aborted) return timeoutError("overall", overallMs, url);
    if (req.signal?.aborted) return new HttpError("http.aborted", `request to ${url} was cancelled`, { url });
    const msg = (err as Error)?.cause instanceof Error ? ((err as Error).cause as Error).message : String(err);
    return new HttpError("http.connection_failed", `request to ${url} failed: ${msg}`, { url, cause: code });
  }
}

/** Node's global FormData and undici's are different classes; copy entries across. */
function toUndiciBody(undici: Undici, body: HttpRequestSpec["body"]): unknown {
  if (body === undefined || typeof body === "string" || body instanceof Uint8Array) return body;
  if (body instanceof undici.FormData) return body;
  const fd = new undici.FormData();
  for (const [k, v] of (body as FormData).entries()) {
    if (typeof v === "string") fd.append(k, v);
    else fd.append(k, v as unknown as Blob, (v as File).name);
  }
  return fd;
}

export function createHttpService(opts: HttpServiceOptions = {}): HttpService {
  return new GuardedHttpService(opts);
}
