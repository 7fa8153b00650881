// MUST-SHOW (issue 29 item 5): a secret set through the CLI (`weft env set --secret`, value on stdin) reaches
// the node that reads it, and is absent from every API response, `weft export`, the trace, the event log, the
// raw bytes of the SQLite file (and its WAL) and a PostgreSQL dump.
import { spawnSync } from "node:child_process";
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WeftConfigSchema } from "../../src/config/weft-config.js";
import { openTracing } from "../../src/observability/index.js";
import { createEventLog } from "../../src/observability/log.js";
import { combineObservers } from "../../src/observability/metrics.js";
import { RunLogObserver } from "../../src/observability/run-log-observer.js";
import { type RunningServer, startServer } from "../../src/server/index.js";
import { GuardedHttpService } from "../../src/tools/http.js";
import { buildWorkflow, tpl } from "../support/build.js";
import { type OtlpReceiver, spansOfJson, startOtlpReceiver } from "../support/otlp-receiver.js";
import { hasPostgres, type PgCluster, postgresBinDir, startPostgres } from "../support/postgres.js";
import { runWeft } from "../support/weft-bin.js";
import { readSse } from "./helpers.js";

const SECRET = "sk-weft-Zq8vT3xL9pR2mN7kW4yB-distinctive";
const NEEDLES = [SECRET, Buffer.from(SECRET).toString("base64"), Buffer.from(SECRET).toString("hex")];

/** Whether any needle occurs in the text or bytes. */
function leaks(what: string | Buffer): string[] {
  const b = typeof what === "string" ? Buffer.from(what) : what;
  return NEEDLES.filter((n) => b.includes(Buffer.from(n)));
}

/** A loopback server that records the Authorization header of each request and echoes it in its body. */
class Recorder {
  seen: string[] = [];
  private server?: Server;
  url = "";
  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const auth = String(req.headers.authorization ?? "");
      this.seen.push(auth);
      res.setHeader("content-type", "text/plain");
      res.end(`you sent ${auth}`);
    });
    await new Promise<void>((r) => this.server!.listen(0, "127.0.0.1", () => r()));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }
  stop(): Promise<void> {
    return new Promise((r) => (this.server ? this.server.close(() => r()) : r()));
  }
}

function workflow(url: string) {
  return buildWorkflow({
    nodes: [
      { id: "start", type: "start", variables: [] },
      {
        id: "h",
        type: "http-request",
        title: "call",
        method: "get",
        url: `${url}/hit`,
        headers: "Authorization:Bearer {{#env.API_KEY#}}",
        params: "",
        body: { type: "none", data: [] },
        authorization: { type: "no-auth" },
        timeout: { max_connect_timeout: 10, max_read_timeout: 30, max_write_timeout: 10 },
      },
      tpl("t", "key={{ k }} region={{ r }}", { k: ["env", "API_KEY"], r: ["env", "REGION"] }),
      {
        id: "end",
        type: "end",
        outputs: [
          { variable: "body", value_selector: ["h", "body"] },
          { variable: "echo", value_selector: ["t", "output"] },
        ],
      },
    ],
    edges: [
      ["start", "h"],
      ["h", "t"],
      ["t", "end"],
    ],
    environment_variables: [
      { name: "API_KEY", value_type: "secret", value: "" },
      { name: "REGION", value_type: "string", value: "eu" },
    ],
  });
}

const weft = (args: string[], env: NodeJS.ProcessEnv, input?: string) =>
  runWeft(args, { env: { ...process.env, ...env }, input });

interface Backend {
  db: string;
  env: NodeJS.ProcessEnv;
  keyFile: string;
  /** The stored bytes to grep once the server has stopped. */
  bytes(): Buffer[];
}

/**
 * Tracing (content capture on, to the OTLP receiver, every request body kept as sent) and the process event log
 * (JSON lines to a file), wired as `weft serve` wires them (src/cli/observability.ts).
 */
async function observability(dir: string) {
  const raw: Buffer[] = [];
  const receiver: OtlpReceiver = await startOtlpReceiver((_type, body) => {
    raw.push(body);
    return spansOfJson(JSON.parse(body.toString("utf8")));
  });
  const cfg = WeftConfigSchema.parse({
    observability: { tracing: { enabled: true, endpoint: receiver.url, protocol: "http/json", captureContent: true } },
  });
  const tracing = (await openTracing(cfg, "serve"))!;
  const logFile = join(dir, "events.jsonl");
  const fd = openSync(logFile, "w");
  const log = createEventLog("json", { name: "weft-serve", fd, level: "debug" });
  return {
    receiver,
    wrap: tracing.wrap,
    observer: combineObservers([
      tracing.observer,
      new RunLogObserver(log, { source: "serve", traceId: tracing.traceId }),
    ])!,
    /** Flushes the exporter and the log; what the receiver and the log file got. */
    async collect(): Promise<Record<string, string>> {
      await tracing.shutdown();
      closeSync(fd);
      await receiver.close();
      return {
        "trace export bodies": raw.map((b) => b.toString("utf8")).join("\n"),
        "trace spans": JSON.stringify(receiver.spans),
        "process event log": readFileSync(logFile, "utf8"),
      };
    },
  };
}

/** The whole scenario against one database; resolves to every text the user could see. */
async function scenario(b: Backend, recorder: Recorder): Promise<{ seen: string[]; texts: Record<string, string> }> {
  const texts: Record<string, string> = {};
  const obs = await observability(dirname(b.keyFile));
  const server: RunningServer = await startServer({
    db: b.db,
    port: 0,
    secretKeyFile: b.keyFile,
    services: obs.wrap({ http: new GuardedHttpService({ allowPrivate: true, allowHosts: [] }) }),
    observer: obs.observer,
  });
  try {
    const { key } = await server.deps.apps.createKey("test");
    const api = async (path: string, init: RequestInit & { json?: unknown } = {}) => {
      const headers = new Headers(init.headers);
      headers.set("authorization", `Bearer ${key}`);
      if (init.json !== undefined) headers.set("content-type", "application/json");
      const res = await fetch(`${server.url}${path}`, {
        ...init,
        headers,
        body: init.json !== undefined ? JSON.stringify(init.json) : init.body,
      });
      const text = await res.text();
      texts[`${init.method ?? "GET"} ${path}`] = text;
      return { status: res.status, text, json: () => JSON.parse(text) };
    };
    const created = await api("/api/apps", {
      method: "POST",
      json: { name: "secrets", workflow: workflow(recorder.url) },
    });
    expect(created.status).toBe(201);
    const appId: string = created.json().app.id;
    expect(created.json().diagnostics).toContainEqual(expect.objectContaining({ code: "env.secret_empty" }));

    // The secret goes in through the CLI, on stdin.
    const set = weft(["env", "set", appId, "API_KEY", "--secret", "--db", b.db], b.env, `${SECRET}\n`);
    expect(set.err).toBe("");
    expect(set.code).toBe(0);
    expect(statSync(b.keyFile).mode & 0o777).toBe(0o600);
    const listed = weft(["env", "list", appId, "--json", "--db", b.db], b.env);
    texts["weft env list"] = listed.out;
    expect(JSON.parse(listed.out).variables).toEqual([
      { name: "API_KEY", type: "secret", value: null, set: true },
      { name: "REGION", type: "string", value: "eu", set: true },
    ]);

    // A studio run (the draft) through /api, its events over SSE, and a /v1 run of the published version.
    const started = await api(`/api/apps/${appId}/runs`, { method: "POST", json: { inputs: {} } });
    expect(started.status).toBe(202);
    const runId: string = started.json().runId;
    const events = await fetch(`${server.url}/api/runs/${runId}/events`, {
      headers: { authorization: `Bearer ${key}` },
    });
    texts.sse = JSON.stringify(await readSse(events));
    const detail = await api(`/api/runs/${runId}`);
    expect(detail.json().status).toBe("succeeded");
    expect(detail.json().outputs.echo).toBe("key=[secret] region=eu");
    expect(detail.json().outputs.body).toBe("you sent Bearer [secret]");

    const appKey = await server.deps.stores.service.createAppKey(appId);
    const v1 = await fetch(`${server.url}/v1/workflows/run`, {
      method: "POST",
      headers: { authorization: `Bearer ${appKey.key}`, "content-type": "application/json" },
      body: JSON.stringify({ inputs: {}, response_mode: "blocking", user: "u1" }),
    });
    texts.v1 = await v1.text();
    expect(JSON.parse(texts.v1).data.status).toBe("succeeded");

    for (const path of [
      "/api/apps",
      `/api/apps/${appId}`,
      `/api/apps/${appId}/workflow`,
      `/api/apps/${appId}/versions`,
      `/api/apps/${appId}/versions/1`,
      `/api/apps/${appId}/draft`,
      `/api/apps/${appId}/env`,
      `/api/apps/${appId}/runs`,
      `/api/apps/${appId}/export`,
      "/api/runs",
      `/api/runs/${runId}`,
      `/api/runs/${runId}/trace`,
    ])
      expect((await api(path)).status).toBe(200);
    expect(JSON.parse(texts[`GET /api/apps/${appId}/env`]!).variables[0]).toEqual({
      name: "API_KEY",
      type: "secret",
      value: null,
      set: true,
    });
    // The event log as stored, not only as streamed.
    texts.storedEvents = JSON.stringify(await server.deps.apps.events(runId));
    texts.storedRun = JSON.stringify(await server.deps.runs.getRun(runId));
    texts.committed = JSON.stringify([...(await server.deps.runs.committed(runId)).values()]);

    const exported = weft(["export", "--app", appId, "--to", "dify", "--db", b.db], b.env);
    expect(exported.code).toBe(0);
    expect(exported.out).toContain("API_KEY");
    texts["weft export"] = exported.out;
    const trace = weft(["trace", runId, "--db", b.db], b.env);
    texts["weft trace"] = trace.out + trace.err;
    const runs = weft(["runs", "--app", appId, "--json", "--db", b.db], b.env);
    texts["weft runs"] = runs.out;
  } finally {
    await server.close();
    Object.assign(texts, await obs.collect());
  }
  // The trace is really there: the runs' spans, the HTTP call among them, exported with their attributes.
  expect(obs.receiver.spans.filter((s) => s.name.startsWith("run ")).length).toBeGreaterThanOrEqual(2);
  expect(obs.receiver.spans.filter((s) => s.name === "node http-request h").length).toBeGreaterThanOrEqual(2);
  expect(obs.receiver.spans.some((s) => String(s.attributes["url.full"]).endsWith("/hit"))).toBe(true);
  expect(texts["process event log"]).toMatch(/"runId"/);
  for (const [i, buf] of b.bytes().entries()) texts[`stored bytes ${i}`] = buf.toString("latin1");
  return { seen: [...recorder.seen], texts };
}

function expectNoLeak(texts: Record<string, string>): void {
  const found = Object.entries(texts).flatMap(([where, t]) =>
    leaks(Buffer.from(t, where.startsWith("stored bytes") ? "latin1" : "utf8")).map((n) => `${where}: ${n}`),
  );
  expect(found).toEqual([]);
}

const recorder = new Recorder();
beforeAll(() => recorder.start());
afterAll(() => recorder.stop());

describe("a secret set through the CLI", () => {
  it("on SQLite: reaches the HTTP node, and is in no API response, export, trace, event log or database byte", async () => {
    const dir = mkdtempSync(join(tmpdir(), "weft-secrets-"));
    try {
      const db = join(dir, "weft.db");
      const keyFile = join(dir, "weft-secret.key");
      recorder.seen = [];
      const { seen, texts } = await scenario(
        {
          db,
          keyFile,
          env: { WEFT_SECRET_KEY: "", WEFT_SECRET_KEY_FILE: "" },
          bytes: () => [db, `${db}-wal`, `${db}-shm`].filter(existsSync).map((f) => readFileSync(f)),
        },
        recorder,
      );
      // The studio run and the /v1 run both sent the real value.
      expect(seen).toEqual([`Bearer ${SECRET}`, `Bearer ${SECRET}`]);
      expect(Object.keys(texts).length).toBeGreaterThan(20);
      expect(texts["stored bytes 0"]!.length).toBeGreaterThan(0);
      // The test can see a leak: the needle is in the recorder's log, as it must be.
      expect(leaks(seen.join())).toEqual([SECRET]);
      expectNoLeak(texts);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  describe.skipIf(!hasPostgres && !process.env.CI)("on PostgreSQL", () => {
    let cluster: PgCluster | undefined;
    beforeAll(async () => {
      cluster = await startPostgres();
    }, 120_000);
    afterAll(() => cluster?.stop());

    it("reaches the node, and a pg_dump of the database holds neither it nor its base64", async () => {
      const dir = mkdtempSync(join(tmpdir(), "weft-secrets-pg-"));
      try {
        const url = await cluster!.createDatabase();
        const keyFile = join(dir, "weft-secret.key");
        recorder.seen = [];
        const dump = () => {
          const r = spawnSync(join(postgresBinDir()!, "pg_dump"), ["--dbname", url], { maxBuffer: 64 << 20 });
          if (r.status !== 0) throw new Error(`pg_dump failed: ${r.stderr}`);
          return [r.stdout as Buffer];
        };
        const { seen, texts } = await scenario(
          { db: url, keyFile, env: { WEFT_SECRET_KEY: "", WEFT_SECRET_KEY_FILE: keyFile }, bytes: dump },
          recorder,
        );
        expect(seen).toEqual([`Bearer ${SECRET}`, `Bearer ${SECRET}`]);
        expect(texts["stored bytes 0"]).toContain("app_env");
        expect(texts["stored bytes 0"]).toContain("you sent Bearer [secret]");
        expectNoLeak(texts);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }, 120_000);
  });
});
