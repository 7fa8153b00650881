import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createParser } from "eventsource-parser";
import { type RunningServer, type ServerOptions, startServer } from "../../src/server/index.js";
import { corpusPath } from "../support/corpus.js";
import { spawnWeftServe } from "../support/weft-bin.js";

export interface TestServer extends RunningServer {
  key: string;
  dir: string;
  api(path: string, init?: RequestInit & { json?: unknown }): Promise<Response>;
  stop(): Promise<void>;
}

/** A real server on an ephemeral loopback port with a fresh database and one API key. */
export async function startTestServer(o: Partial<ServerOptions> = {}): Promise<TestServer> {
  const dir = mkdtempSync(join(tmpdir(), "weft-server-"));
  const s = await startServer({ db: join(dir, "weft.db"), port: 0, ...o });
  const { key } = await s.deps.apps.createKey("test");
  const api = (path: string, init: RequestInit & { json?: unknown } = {}) => {
    const { json, ...rest } = init;
    const headers = new Headers(rest.headers);
    if (!headers.has("authorization")) headers.set("authorization", `Bearer ${key}`);
    if (json !== undefined) headers.set("content-type", "application/json");
    return fetch(`${s.url}${path}`, { ...rest, headers, body: json !== undefined ? JSON.stringify(json) : rest.body });
  };
  return {
    ...s,
    key,
    dir,
    api,
    stop: async () => {
      await s.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface SseMessage {
  event?: string;
  id?: string;
  data: any;
}

/** Read an SSE response to its end (the server closes it), parsing each data field as JSON. */
export async function readSse(res: Response, onMessage?: (m: SseMessage) => void): Promise<SseMessage[]> {
  if (!res.ok) throw new Error(`SSE request failed: ${res.status} ${await res.text()}`);
  const out: SseMessage[] = [];
  const parser = createParser({
    onEvent: (e) => {
      const m = { event: e.event, id: e.id, data: JSON.parse(e.data) };
      out.push(m);
      onMessage?.(m);
    },
  });
  const decoder = new TextDecoder();
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>)
    parser.feed(decoder.decode(chunk, { stream: true }));
  return out;
}

/** A file of the shared Dify DSL corpus. */
export function corpusFile(rel: string): string {
  return corpusPath("dify-dsl", rel);
}

export interface SampleServer {
  url: string;
  key: string;
  /** Everything it printed on stdout up to "serving on". */
  out: string;
  stop(): Promise<void>;
  /** SIGKILL: the process dies at once, nothing of it runs after (a crash, an OOM kill). */
  kill(): Promise<void>;
  /** What it printed on stderr so far. */
  err(): string;
}

/**
 * `weft serve --sample --port 0` as a user starts it, in its own process; resolves once it prints its address.
 * `args` are added to the command line, `env` to the environment.
 */
export async function serveSample(
  db: string,
  cwd: string,
  o: { args?: string[]; env?: Record<string, string> } = {},
): Promise<SampleServer> {
  const p = await spawnWeftServe(["serve", "--port", "0", "--db", db, "--sample", ...(o.args ?? [])], {
    cwd,
    env: { ...process.env, ...o.env },
  });
  return {
    url: p.url,
    key: /API key: (\S+)/.exec(p.out)![1]!,
    out: p.out,
    stop: () => p.stop(),
    kill: () => p.stop("SIGKILL"),
    err: p.err,
  };
}
