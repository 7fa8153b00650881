// Runs of a `weft serve` killed with SIGKILL are not left `running` (issue 28 item 4): their leases expire and a
// live peer on the same PostgreSQL database, or the same server restarted (PostgreSQL, SQLite), takes them over
// and finishes them from their commits, without anyone asking for a resume. Every node is committed once; the
// nodes that were executing when the server died run again (at-least-once), counted by the loopback server
// their HTTP calls reach.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStores } from "../../src/store/open.js";
import { buildWorkflow } from "../support/build.js";
import { hasPostgres, type PgCluster, startPostgres } from "../support/postgres.js";
import { type SampleServer, serveSample } from "./helpers.js";

/** Short leases so a dead server's runs are taken over within seconds. */
const LEASE = { WEFT_RUN_LEASE_MS: "3000", WEFT_RUN_LEASE_RENEW_MS: "500" };
const RUNS = 60;
const CHAIN = ["h1", "h2", "h3"];

const dir = mkdtempSync(join(tmpdir(), "weft-takeover-"));
const config = join(dir, "weft.config.json");
writeFileSync(config, JSON.stringify({ http: { allowPrivate: true }, files: { dir: join(dir, "files") } }));

/**
 * The slow dependency every node calls: it answers after 100 ms (the work a node does) and counts each call per
 * (run, node). `/hold/...` calls are answered only once `release()` is called (runs kept unfinished on purpose).
 */
class Counter {
  server!: Server;
  url = "";
  readonly calls = new Map<string, number>();
  total = 0;
  private holding = true;
  private held: ServerResponse[] = [];
  private heldCalls = 0;
  private waiters: Array<{ ok: () => boolean; resolve: () => void }> = [];

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const u = new URL(req.url ?? "/", "http://x");
      const [, kind, node] = u.pathname.split("/");
      const run = u.searchParams.get("run") ?? "";
      if (kind === "hold" && this.holding) {
        this.heldCalls++;
        this.held.push(res);
      } else {
        const k = `${run}/${node}`;
        this.calls.set(k, (this.calls.get(k) ?? 0) + 1);
        this.total++;
        setTimeout(() => res.end(`${node}:${run}`), 100);
      }
      this.waiters = this.waiters.filter((w) => {
        if (!w.ok()) return true;
        w.resolve();
        return false;
      });
    });
    await new Promise<void>((r) => this.server.listen(0, "127.0.0.1", r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Resolves once the counter has seen `calls` counted calls and `held` held ones. */
  reached(calls: number, held = 0): Promise<void> {
    return new Promise((resolve) => {
      const ok = () => this.total >= calls && this.heldCalls >= held;
      if (ok()) resolve();
      else this.waiters.push({ ok, resolve });
    });
  }

  /** Held calls from now on are answered like the others (those already held died with their server). */
  release(): void {
    this.holding = false;
    for (const r of this.held.splice(0)) r.destroy();
  }

  reset(): void {
    this.calls.clear();
    this.total = 0;
    this.heldCalls = 0;
    this.holding = true;
  }

  /** Calls beyond one per (run, node) of these runs: nodes executed again after a takeover. */
  repeats(runIds: string[]): number {
    const ids = new Set(runIds);
    let n = 0;
    for (const [k, c] of this.calls) if (ids.has(k.split("/")[0]!)) n += c - 1;
    return n;
  }
}

const counter = new Counter();

function httpNode(id: string, path: string) {
  return {
    id,
    type: "http-request",
    title: id,
    method: "get",
    url: `${counter.url}/${path}/${id}?run={{#sys.workflow_run_id#}}`,
    headers: "",
    params: "",
    body: { type: "none", data: [] },
    authorization: { type: "no-auth" },
    timeout: { max_connect_timeout: 10, max_read_timeout: 60, max_write_timeout: 10 },
  };
}

/** start → h1 → h2 → h3 → end, each an HTTP call of ~100 ms to the counter. */
function chain() {
  return buildWorkflow({
    nodes: [
      { id: "start", type: "start", variables: [] },
      ...CHAIN.map((id) => httpNode(id, "hit")),
      { id: "end", type: "end", outputs: [{ variable: "out", value_selector: ["h3", "body"] }] },
    ],
    edges: [
      ["start", "h1"],
      ["h1", "h2"],
      ["h2", "h3"],
      ["h3", "end"],
    ],
  });
}

/** start → a call held until released → end: its runs are still executing when the server dies. */
function held() {
  return buildWorkflow({
    nodes: [
      { id: "start", type: "start", variables: [] },
      httpNode("wait", "hold"),
      { id: "end", type: "end", outputs: [{ variable: "out", value_selector: ["wait", "body"] }] },
    ],
    edges: [
      ["start", "wait"],
      ["wait", "end"],
    ],
  });
}

/** Raw SQL on the server's database, `$1` parameters on both backends. */
interface Sql {
  rows<R = Record<string, unknown>>(sql: string, ...params: unknown[]): Promise<R[]>;
  close(): Promise<void>;
}

async function pgSql(url: string): Promise<Sql> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return { rows: async (sql, ...params) => (await client.query(sql, params)).rows, close: () => client.end() };
}

function sqliteSql(path: string): Sql {
  const db = new Database(path, { readonly: true });
  return {
    rows: async (sql, ...params) => db.prepare(sql.replace(/\$(\d+)/g, "?$1")).all(...params) as never,
    close: async () => {
      db.close();
    },
  };
}

interface RunRow {
  id: string;
  status: string;
  outputs: string | null;
  error: string | null;
  lease_owner: string | null;
}

const runRows = (sql: Sql, ids: string[]) =>
  sql
    .rows<RunRow>(
      "SELECT id, status, CAST(outputs AS text) AS outputs, CAST(error AS text) AS error, lease_owner FROM runs",
    )
    .then((rows) => rows.filter((r) => ids.includes(r.id)));

/** Poll the database until `done` holds (every 100 ms, at most `timeoutMs`): waits for a state, not a time. */
async function until(what: string, done: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function api(s: SampleServer, path: string, json?: unknown): Promise<Response> {
  return fetch(`${s.url}${path}`, {
    method: json === undefined ? "GET" : "POST",
    headers: { authorization: `Bearer ${s.key}`, "content-type": "application/json" },
    body: json === undefined ? undefined : JSON.stringify(json),
  });
}

async function createApp(s: SampleServer, name: string, workflow: unknown): Promise<string> {
  const res = await api(s, "/api/apps", { name, workflow });
  expect(res.status, await res.clone().text()).toBe(201);
  return ((await res.json()) as { app: { id: string } }).app.id;
}

/** Start `n` runs at once; the ids of those the server accepted (202). */
async function startRuns(s: SampleServer, appId: string, n: number): Promise<string[]> {
  const answers = await Promise.all(
    Array.from({ length: n }, () => api(s, `/api/apps/${appId}/runs`, { inputs: {}, allow_warnings: true })),
  );
  const ids: string[] = [];
  for (const a of answers) {
    expect(a.status, await a.clone().text()).toBe(202);
    ids.push(((await a.json()) as { runId: string }).runId);
  }
  return ids;
}

/**
 * Start RUNS chain runs on `victim`, SIGKILL it mid-load (once the counter has seen half the calls), let
 * `survivor()` (a peer, or the victim restarted) take them over, and check every one: finished from its commits,
 * no node committed twice. Prints the counts.
 */
async function killAndTakeOver(o: {
  label: string;
  victim: SampleServer;
  survivor: () => Promise<SampleServer>;
  sql: Sql;
  appId: string;
  before?: () => Promise<void>;
}): Promise<{ survivor: SampleServer; ids: string[] }> {
  counter.reset();
  await o.before?.();
  const ids = await startRuns(o.victim, o.appId, RUNS);
  await counter.reached(Math.floor((RUNS * CHAIN.length) / 2));
  // Only the victim runs them so far: every lease on them is its own.
  const owners = new Set((await runRows(o.sql, ids)).flatMap((r) => (r.status === "running" ? [r.lease_owner] : [])));
  const killedAt = Date.now();
  await o.victim.kill();
  // Read once the victim is dead: a claim changes no status, so these are exactly the runs it left unfinished.
  const unfinishedIds = (await runRows(o.sql, ids)).filter((r) => r.status === "running").map((r) => r.id);
  const unfinishedAtKill = unfinishedIds.length;
  counter.release();
  const survivor = await o.survivor();
  await until(
    "every run of the killed server to be claimed",
    async () => {
      const rows = await runRows(o.sql, ids);
      return rows.every((r) => r.status !== "running" || !owners.has(r.lease_owner));
    },
    60_000,
  );
  const claimedAfter = Date.now() - killedAt;
  // Ended, and its lease released (just after its record is written): nothing holds a finished run.
  await until(
    "every accepted run to end and be released",
    async () => (await runRows(o.sql, ids)).every((r) => r.status !== "running" && r.lease_owner === null),
    90_000,
  ).catch(async (e: Error) => {
    const left = (await runRows(o.sql, ids)).filter((r) => r.status === "running" || r.lease_owner !== null);
    throw new Error(`${e.message}; left: ${JSON.stringify(left.slice(0, 5))}; survivor said: ${survivor.err()}`);
  });
  const finishedAfter = Date.now() - killedAt;
  const rows = await runRows(o.sql, ids);
  const succeeded = rows.filter((r) => r.status === "succeeded");
  const failed = rows.filter((r) => r.status === "failed");
  const [dup] = await o.sql.rows<{ n: number }>(
    "SELECT count(*) AS n FROM (SELECT run_id, key FROM node_commits GROUP BY run_id, key HAVING count(*) > 1) d",
  );
  const commits = (await o.sql.rows<{ run_id: string }>("SELECT run_id FROM node_commits")).filter((c) =>
    ids.includes(c.run_id),
  ).length;
  const resumed = new Set(
    (
      await o.sql.rows<{ run_id: string }>(
        "SELECT run_id FROM run_events WHERE CAST(event AS text) LIKE '%\"resumed\":true%'",
      )
    ).map((r) => r.run_id),
  );
  const report = {
    accepted: ids.length,
    unfinishedAtKill,
    finished: succeeded.length + failed.length,
    succeeded: succeeded.length,
    failed: failed.length,
    duplicateCommits: Number(dup!.n),
    commits,
    resumed: ids.filter((id) => resumed.has(id)).length,
    nodesReRun: counter.repeats(ids),
    claimedAllMs: claimedAfter,
    finishedAllMs: finishedAfter,
  };
  console.log(`${o.label}: ${JSON.stringify(report)}`);

  expect(report.unfinishedAtKill).toBeGreaterThan(0);
  expect(report.finished).toBe(RUNS);
  expect(failed.map((r) => r.error)).toEqual([]);
  for (const r of succeeded) expect(JSON.parse(r.outputs!)).toEqual({ out: `h3:${r.id}` });
  expect(report.duplicateCommits).toBe(0);
  // start, three calls, end: each committed exactly once per run.
  expect(report.commits).toBe(RUNS * (CHAIN.length + 2));
  // Every run the victim left unfinished was resumed. A live peer may also have resumed a run before the kill: on
  // a loaded machine the victim can miss its lease renewals (3 s) and the peer then takes that run over, correctly.
  expect(unfinishedIds.filter((id) => !resumed.has(id))).toEqual([]);
  expect(report.resumed).toBeGreaterThanOrEqual(report.unfinishedAtKill);
  // Only a node executing when its server lost the run runs again, at most one per resumed chain run.
  expect(report.nodesReRun).toBeLessThanOrEqual(report.resumed);
  return { survivor, ids };
}

beforeAll(() => counter.start());
afterAll(async () => {
  await new Promise((r) => counter.server.close(r));
  rmSync(dir, { recursive: true, force: true });
});

const serve = (db: string) => serveSample(db, dir, { args: ["--config", config], env: LEASE });

describe.skipIf(!hasPostgres && !process.env.CI)("takeover on one PostgreSQL database", () => {
  let cluster: PgCluster;
  const servers: SampleServer[] = [];
  beforeAll(async () => {
    cluster = await startPostgres();
  }, 120_000);
  afterAll(async () => {
    for (const s of servers) await s.stop();
    await cluster?.stop();
  }, 60_000);

  it("a server killed with SIGKILL: its live peer takes over every run and finishes it", async () => {
    const db = await cluster.createDatabase();
    const a = await serve(db);
    const b = await serve(db);
    servers.push(a, b);
    const sql = await pgSql(db);
    try {
      const appId = await createApp(a, "Chain", chain());
      await killAndTakeOver({ label: "PostgreSQL, peer takes over", victim: a, survivor: async () => b, sql, appId });
    } finally {
      await sql.close();
    }
  }, 240_000);

  it("a server killed with SIGKILL and started again takes its own runs back", async () => {
    const db = await cluster.createDatabase();
    const a = await serve(db);
    servers.push(a);
    const sql = await pgSql(db);
    try {
      const appId = await createApp(a, "Chain", chain());
      const { survivor } = await killAndTakeOver({
        label: "PostgreSQL, restarted server takes over",
        victim: a,
        survivor: () => serve(db),
        sql,
        appId,
      });
      servers.push(survivor);
    } finally {
      await sql.close();
    }
  }, 240_000);
});

describe("takeover on SQLite", () => {
  it("a server killed with SIGKILL and started again resumes its runs; runs that cannot continue fail typed", async () => {
    const db = join(dir, "weft.db");
    const a = await serve(db);
    let b: SampleServer | undefined;
    const sql = sqliteSql(db);
    try {
      const appId = await createApp(a, "Chain", chain());
      const doomedApp = await createApp(a, "Doomed", held());
      const keptApp = await createApp(a, "Held", held());
      let doomed: string[] = [];
      let kept: string[] = [];
      const r = await killAndTakeOver({
        label: "SQLite, restarted server takes over",
        victim: a,
        sql,
        appId,
        before: async () => {
          doomed = await startRuns(a, doomedApp, 2);
          kept = await startRuns(a, keptApp, 2);
          // Every held call is in flight: these runs are unfinished when the server dies.
          await counter.reached(0, 4);
        },
        survivor: async () => {
          // While no server runs: one app is deleted, one run's stored workflow is damaged.
          const stores = await openStores(`sqlite:${db}`);
          await stores.apps.deleteApp(doomedApp);
          await stores.close();
          const raw = new Database(db);
          raw.prepare("UPDATE runs SET workflow = ? WHERE id = ?").run(JSON.stringify({ nodes: "broken" }), kept[0]);
          raw.close();
          return serve(db);
        },
      });
      b = r.survivor;
      await until(
        "the runs of the deleted and the held app to end",
        async () => (await runRows(sql, [...doomed, ...kept])).every((x) => x.status !== "running"),
        60_000,
      );
      const others = await runRows(sql, [...doomed, ...kept]);
      const byId = new Map(others.map((x) => [x.id, x]));
      for (const id of doomed) expect(JSON.parse(byId.get(id)!.error!)).toMatchObject({ code: "run.app_deleted" });
      expect(byId.get(kept[0]!)).toMatchObject({ status: "failed", lease_owner: null });
      expect(JSON.parse(byId.get(kept[0]!)!.error!)).toMatchObject({ code: "run.workflow_invalid" });
      expect(byId.get(kept[1]!)).toMatchObject({ status: "succeeded", lease_owner: null });
      expect(JSON.parse(byId.get(kept[1]!)!.outputs!)).toEqual({ out: `wait:${kept[1]}` });
      expect(others.every((x) => x.status !== "running")).toBe(true);
    } finally {
      await sql.close();
      await b?.stop();
      await a.stop();
    }
  }, 240_000);
});
