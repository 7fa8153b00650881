// Queue throughput: runs/second with 1, 2 and 4 `weft worker` processes sharing one Redis, on a small
// deterministic workflow (start → two templates → end: 4 node commits and 4 attempts per run), against two
// shared stores measured in the same run:
//   sqlite   — one SQLite file (synchronous=FULL), workers on one machine sharing the file (the baseline);
//   postgres — one PostgreSQL (fsync and synchronous_commit on, as in production), each worker in a working
//              directory of its own, sharing nothing but Redis and the database.
// Needs redis-server and PostgreSQL (/usr/lib/postgresql/*/bin). RUNS=400 WORKERS=1,2,4 STORES=sqlite,postgres.
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { submitRuns } from "../src/queue/index.js";
import { openStores } from "../src/store/open.js";
import { openSqlite } from "../src/store/sqlite/database.js";
import { buildWorkflow, tpl } from "../test/support/build.js";
import { startPostgres } from "../test/support/postgres.js";
import { startRedis } from "../test/support/redis.js";
import { spawnWorker } from "../test/support/workers.js";

const RUNS = Number(process.env.RUNS ?? 400);
const COUNTS = (process.env.WORKERS ?? "1,2,4").split(",").map(Number);
const STORES = (process.env.STORES ?? "sqlite,postgres").split(",");
const REPEAT = Number(process.env.REPEAT ?? 1);

const wf = buildWorkflow({
  nodes: [
    { id: "start", type: "start", variables: [{ variable: "n", type: "text-input" }] },
    tpl("a", "a{{ n }}", { n: ["start", "n"] }),
    tpl("b", "{{ a }}b", { a: ["a", "output"] }),
    { id: "end", type: "end", outputs: [{ variable: "out", value_selector: ["b", "output"] }] },
  ],
  edges: [
    ["start", "a"],
    ["a", "b"],
    ["b", "end"],
  ],
});

const cluster = STORES.includes("postgres") ? await startPostgres({ durable: true }) : undefined;

/** A fresh database and a cheap way to count finished runs (listing would parse every workflow). */
async function freshStore(
  kind: string,
): Promise<{ db: string; cwd?: string; done(): Promise<number>; close(): Promise<void> }> {
  if (kind === "sqlite") {
    const dir = mkdtempSync(join(tmpdir(), "weft-qbench-"));
    const db = join(dir, "runs.db");
    await (await openStores(db)).close();
    const sqlite = openSqlite(db);
    const q = sqlite.prepare("SELECT COUNT(*) AS n FROM runs WHERE status = 'succeeded'");
    return {
      db,
      cwd: dir,
      done: async () => (q.get() as { n: number }).n,
      close: async () => {
        sqlite.close();
      },
    };
  }
  const db = await cluster!.createDatabase();
  await (await openStores(db)).close();
  const client = new pg.Client({ connectionString: db });
  await client.connect();
  return {
    db,
    done: async () =>
      Number((await client.query("SELECT count(*) AS n FROM weft.runs WHERE status = 'succeeded'")).rows[0].n),
    close: () => client.end(),
  };
}

/** CPU milliseconds a process (and, with `children`, its direct children: PostgreSQL's backends) has used. */
function cpuMs(pid: number | undefined, children = false): number {
  if (!pid) return 0;
  const stat = (p: string) => {
    try {
      // Fields after the command name: state ppid … utime(14) stime(15), in clock ticks (100 a second).
      const f = readFileSync(`/proc/${p}/stat`, "utf8")
        .replace(/^.*\) /, "")
        .split(" ");
      return { ppid: Number(f[1]), ms: (Number(f[11]) + Number(f[12])) * 10 };
    } catch {
      return { ppid: -1, ms: 0 };
    }
  };
  let ms = stat(String(pid)).ms;
  if (children)
    for (const p of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
      const s = stat(p);
      if (s.ppid === pid) ms += s.ms;
    }
  return ms;
}

const cpu = new Map<string, { worker: number; redis: number; pg: number }>();

async function measure(kind: string, workers: number): Promise<number> {
  const redis = await startRedis();
  const store = await freshStore(kind);
  const procs = Array.from({ length: workers }, (_, i) =>
    spawnWorker({ name: `b${i}`, redisUrl: redis.url, db: store.db, cwd: store.cwd, concurrency: 8, lockMs: 30_000 }),
  );
  await Promise.all(procs.map((p) => p.ready));
  const cpu0 = procs.reduce((a, p) => a + cpuMs(p.p.pid), 0);
  const redis0 = cpuMs(redis.proc.pid);
  const pg0 = kind === "postgres" ? cpuMs(cluster!.pid, true) : 0;
  const t0 = performance.now();
  await submitRuns(
    Array.from({ length: RUNS }, (_, i) => ({ workflow: wf, inputs: { n: String(i) } })),
    { redisUrl: redis.url },
  );
  while ((await store.done()) < RUNS) await new Promise((r) => setTimeout(r, 50));
  const secs = (performance.now() - t0) / 1000;
  cpu.set(`${kind}/${workers}`, {
    worker: (procs.reduce((a, p) => a + cpuMs(p.p.pid), 0) - cpu0) / RUNS,
    redis: (cpuMs(redis.proc.pid) - redis0) / RUNS,
    pg: kind === "postgres" ? (cpuMs(cluster!.pid, true) - pg0) / RUNS : 0,
  });
  for (const p of procs) p.p.kill("SIGTERM");
  await Promise.all(procs.map((p) => p.exited));
  await store.close();
  await redis.stop();
  return RUNS / secs;
}

/**
 * The store's own ceiling, without the engine or Redis: node commits per second from one process with 16 in
 * flight (a worker's concurrency is 8 runs, each committing one node at a time on a chain).
 */
async function commitRate(kind: string): Promise<number> {
  const store = await freshStore(kind);
  const stores = await openStores(store.db);
  const N = 2000;
  const now = Date.now();
  const runIds = Array.from({ length: N / 4 }, (_, i) => `c${i}`);
  for (const id of runIds)
    await stores.runs.createRun({ id, workflow: wf, inputs: {}, status: "running", createdAt: now, updatedAt: now });
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      for (let i = next++; i < N; i = next++)
        await stores.runs.commitNode(runIds[i % runIds.length]!, {
          key: `n${Math.floor(i / runIds.length)}`,
          nodeId: "a",
          status: "succeeded",
          outputs: { output: `v${i}` },
        });
    }),
  );
  const rate = N / ((performance.now() - t0) / 1000);
  await stores.close();
  await store.close();
  return rate;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const results = new Map<string, number>();
for (let r = 0; r < REPEAT; r++)
  for (const n of COUNTS)
    for (const kind of STORES) {
      const rps = await measure(kind, n);
      results.set(`${kind}/${n}/${r}`, rps);
      console.error(`  ${kind} ${n} worker(s), round ${r + 1}: ${rps.toFixed(1)} runs/s`);
    }
const rate = (kind: string, n: number) =>
  median(Array.from({ length: REPEAT }, (_, r) => results.get(`${kind}/${n}/${r}`)!));

console.log(`${RUNS} runs per measurement, median of ${REPEAT}; 4 node commits + 4 attempts per run`);
for (const kind of STORES) {
  const base = rate(kind, COUNTS[0]!);
  for (const n of COUNTS) {
    const rps = rate(kind, n);
    const vsSqlite =
      STORES.includes("sqlite") && kind !== "sqlite" ? `, ×${(rps / rate("sqlite", n)).toFixed(2)} vs sqlite` : "";
    console.log(
      `${kind.padEnd(8)} ${n} worker(s): ${rps.toFixed(1).padStart(6)} runs/s ≈ ${(rps * 8).toFixed(0).padStart(5)} writes/s  (×${(rps / base).toFixed(2)} vs ${COUNTS[0]} worker${vsSqlite})`,
    );
  }
}
for (const [k, c] of cpu)
  console.log(
    `CPU per run, ${k.replace("/", ", ")} worker(s), last round: workers ${c.worker.toFixed(2)} ms, Redis ${c.redis.toFixed(2)} ms${c.pg ? `, PostgreSQL ${c.pg.toFixed(2)} ms` : ""}`,
  );
for (const kind of STORES)
  console.log(
    `${kind.padEnd(8)} store alone: ${(await commitRate(kind)).toFixed(0)} node commits/s (one process, 16 in flight)`,
  );
console.log(`machine: ${cpus().length} cores — scaling beyond the core count is not expected`);
await cluster?.stop();
process.exit(0);
