/**
 * Run-log queries on 100,000 stored runs (20 apps, mixed statuses and sources, inputs and outputs drawn from a
 * 2,000-word vocabulary), on SQLite and on PostgreSQL: the median (p50) and p90 wall time of a newest-first page
 * without filters, then with app + status + full-text search, its second page by cursor, and a source + time
 * window; the ratio of each to the unfiltered page. Then the server CPU time of an autosave of a 100-node draft
 * (schema check, analysis, store write).
 *
 *   npx tsx bench/runlogs.ts [runs=100000] [backends=sqlite,postgres]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { saveDraft } from "../src/server/drafts.js";
import { openStores } from "../src/store/open.js";
import type { RunQuery } from "../src/store/runlog.js";
import type { Stores } from "../src/store/stores.js";
import { genWorkflow } from "../test/analysis/gen.js";
import { startPostgres } from "../test/support/postgres.js";

const N = Number(process.argv[2] ?? 100_000);
const BACKENDS = (process.argv[3] ?? "sqlite,postgres").split(",");
const ITER = 40;
/** Saves between the cold and the warm sample (a studio autosaving for a few minutes). */
const WARMUP_SAVES = 200;
const APPS = 20;
const STATUSES = ["succeeded", "succeeded", "succeeded", "failed", "paused", "running"];
const SOURCES = ["studio", "api", "v1", "mcp", "queue", "cli"];

// A deterministic generator, so both backends hold the same runs.
let seed = 7;
const rnd = () => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed / 0x7fffffff;
};
const VOCAB = Array.from({ length: 2000 }, (_, i) => `w${i.toString(36)}x${(i * 7919).toString(36)}`);
const words = (n: number) => Array.from({ length: n }, () => VOCAB[Math.floor(rnd() * VOCAB.length)]).join(" ");
const WORKFLOW = JSON.stringify({ weft: 1, name: "bench", mode: "workflow", nodes: [], edges: [] });

interface Row {
  id: string;
  app: string;
  status: string;
  inputs: string;
  outputs: string | null;
  error: string | null;
  at: number;
  source: string;
  version: number;
}

function makeRows(): Row[] {
  const t0 = Date.now() - N * 1000;
  return Array.from({ length: N }, (_, i) => {
    const status = STATUSES[Math.floor(rnd() * STATUSES.length)]!;
    return {
      id: `run${i.toString().padStart(8, "0")}`,
      app: `app${Math.floor(rnd() * APPS)}`,
      status,
      inputs: JSON.stringify({ text: words(12) }),
      outputs: status === "succeeded" ? JSON.stringify({ result: words(8) }) : null,
      error: status === "failed" ? JSON.stringify({ code: "node.failed", message: "boom" }) : null,
      at: t0 + i * 1000,
      source: SOURCES[Math.floor(rnd() * SOURCES.length)]!,
      version: 1 + Math.floor(rnd() * 3),
    };
  });
}

/** SQLite: one transaction through the stores' own connection (better-sqlite3 is synchronous underneath). */
async function fillSqlite(path: string, rows: Row[]): Promise<void> {
  const { default: Database } = await import("better-sqlite3");
  const db = new Database(path);
  const run = db.prepare(
    "INSERT INTO runs (id, app_id, workflow, inputs, status, outputs, error, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?)",
  );
  const tag = db.prepare("INSERT INTO run_tags (run_id, source, version) VALUES (?,?,?)");
  db.transaction(() => {
    for (const r of rows) {
      run.run(r.id, r.app, WORKFLOW, r.inputs, r.status, r.outputs, r.error, r.at, r.at);
      tag.run(r.id, r.source, r.version);
    }
  })();
  db.exec("ANALYZE");
  db.close();
}

async function fillPostgres(url: string, rows: Row[]): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  for (let i = 0; i < rows.length; i += 5000) {
    const b = rows.slice(i, i + 5000);
    await client.query(
      `INSERT INTO runs (id, app_id, workflow, inputs, status, outputs, error, created_at, updated_at)
       SELECT id, app, $3::json, inputs, status, outputs, error, at, at
       FROM unnest($1::text[], $2::text[], $4::json[], $5::text[], $6::json[], $7::json[], $8::bigint[])
         AS t(id, app, inputs, status, outputs, error, at)`,
      [
        b.map((r) => r.id),
        b.map((r) => r.app),
        WORKFLOW,
        b.map((r) => r.inputs),
        b.map((r) => r.status),
        b.map((r) => r.outputs),
        b.map((r) => r.error),
        b.map((r) => r.at),
      ],
    );
    await client.query(
      "INSERT INTO run_tags (run_id, source, version) SELECT * FROM unnest($1::text[], $2::text[], $3::integer[])",
      [b.map((r) => r.id), b.map((r) => r.source), b.map((r) => r.version)],
    );
  }
  await client.query("ANALYZE");
  await client.end();
}

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;

async function time(stores: Stores, q: RunQuery): Promise<{ p50: number; p90: number; n: number }> {
  for (let i = 0; i < 3; i++) await stores.runLog.query(q);
  const ms: number[] = [];
  let n = 0;
  for (let i = 0; i < ITER; i++) {
    const t = performance.now();
    n = (await stores.runLog.query(q)).runs.length;
    ms.push(performance.now() - t);
  }
  return { p50: pct(ms, 0.5), p90: pct(ms, 0.9), n };
}

async function measure(label: string, stores: Stores, rows: Row[]): Promise<void> {
  // A word that occurs in some of app3's succeeded runs, so the search has hits to page through.
  const probe = rows.find((r) => r.app === "app3" && r.status === "succeeded")!;
  const word = JSON.parse(probe.inputs).text.split(" ")[0];
  const filtered: RunQuery = { appId: "app3", status: ["succeeded"], search: word, limit: 20 };
  const first = await stores.runLog.query({ ...filtered, limit: 2 });
  const cases: Array<[string, RunQuery]> = [
    ["newest 20, no filter", { limit: 20 }],
    ["app + status + search", filtered],
    ["  … page 2 by cursor", { ...filtered, limit: 2, ...(first.next ? { cursor: first.next } : {}) }],
    ["source + last 6 hours", { source: ["v1", "mcp"], since: rows.at(-1)!.at - 6 * 3_600_000, limit: 20 }],
    ["search across all apps", { search: word, limit: 20 }],
  ];
  let base = 0;
  console.log(`\n${label}: ${rows.length.toLocaleString("en")} runs`);
  console.log(
    `${"query".padEnd(26)} ${"p50 ms".padStart(8)} ${"p90 ms".padStart(8)} ${"rows".padStart(5)} ${"× unfiltered".padStart(13)}`,
  );
  for (const [name, q] of cases) {
    const r = await time(stores, q);
    if (!base) base = r.p50;
    console.log(
      `${name.padEnd(26)} ${r.p50.toFixed(2).padStart(8)} ${r.p90.toFixed(2).padStart(8)} ${String(r.n).padStart(5)} ${(r.p50 / base).toFixed(2).padStart(13)}`,
    );
  }
}

/**
 * process.cpuUsage counts every thread, V8's optimising compiler included, so the first saves after a start carry
 * the one-off cost of compiling the analyser: they are shown apart (cold) from a running server's saves (warm).
 */
async function autosave(stores: Stores): Promise<void> {
  const wf = genWorkflow(100, 42);
  const { app } = await stores.apps.createApp({ name: "big", mode: wf.mode }, wf, "create");
  const cpu = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  const raw = JSON.parse(JSON.stringify(wf));
  const sample = async () => {
    const ms: number[] = [];
    for (let i = 0; i < ITER; i++) {
      const c = cpu();
      await saveDraft(stores.apps, app.id, raw);
      ms.push(cpu() - c);
    }
    return ms;
  };
  const cold = await sample();
  for (let i = 0; i < WARMUP_SAVES; i++) await saveDraft(stores.apps, app.id, raw);
  const warm = await sample();
  const fmt = (ms: number[]) => `p50 ${pct(ms, 0.5).toFixed(2)} ms, p90 ${pct(ms, 0.9).toFixed(2)} ms`;
  console.log(
    `autosave of a ${wf.nodes.length}-node draft, server CPU: warm ${fmt(warm)}; cold (first ${ITER} after start) ${fmt(cold)}`,
  );
}

const rows = makeRows();
const dir = mkdtempSync(join(tmpdir(), "weft-bench-runlogs-"));
try {
  if (BACKENDS.includes("sqlite")) {
    const path = join(dir, "runs.db");
    await (await openStores(path)).close();
    await fillSqlite(path, rows);
    const stores = await openStores(path);
    await measure("SQLite", stores, rows);
    await autosave(stores);
    await stores.close();
  }
  if (BACKENDS.includes("postgres")) {
    const cluster = await startPostgres();
    try {
      const url = await cluster.createDatabase("bench_runlogs");
      await (await openStores(url)).close();
      await fillPostgres(url, rows);
      const stores = await openStores(url);
      await measure("PostgreSQL", stores, rows);
      await autosave(stores);
      await stores.close();
    } finally {
      await cluster.stop();
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
