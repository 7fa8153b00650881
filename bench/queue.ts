// Queue throughput: runs/second with 1, 2 and 4 `weft worker` processes sharing one Redis, on a small
// deterministic workflow (start → two templates → end: 4 node commits and 4 attempts per run), against two
// shared stores measured in the same run:
//   sqlite   — one SQLite file (synchronous=FULL), workers on one machine sharing the file (the baseline);
//   postgres — one PostgreSQL (fsync and synchronous_commit on, as in production), each worker in a working
//              directory of its own, sharing nothing but Redis and the database.
// Needs redis-server and PostgreSQL (/usr/lib/postgresql/*/bin). RUNS=400 WORKERS=1,2,4 STORES=sqlite,postgres.
// Beside runs/s it prints CPU per run: queued against the same workflow run in this process on the same kind of
// store (warm, 8 at once), and what an idle worker burns per second (timers, polls), which is spread over fewer
// runs per worker as workers are added. What is counted: the queued side is the workers + the submitter (this
// process while `submitRuns` runs) + Redis; the in-process side is this process. PostgreSQL's server CPU (its
// backends and background writers, less the bench's own counting connection) is measured on both sides: the
// first ratio leaves it out of both, the second adds it to both.
//   npx tsx bench/queue.ts [BASELINE_CHECKOUT]   (its bin/weft runs the baseline's workers, its src/ the
//   baseline's in-process runs, alternated with this checkout's in the same run; ratios this/baseline last)
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
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
const IDLE_MS = 3000;
// Runs each fresh worker takes before the measured ones, as the in-process side is measured warm: a worker's
// first runs pay V8's warm-up (TurboFan compiles on background threads for seconds), which at 4 workers × 50
// runs was most of the measured CPU. Their CPU is printed too ("first runs"). WARMUP=0 measures cold workers.
const WARMUP = Number(process.env.WARMUP ?? 200);
const baseDir = process.argv[2] ? resolve(process.argv[2]) : undefined;
if (baseDir && !existsSync(join(baseDir, "bin/weft"))) {
  process.stderr.write("usage: npx tsx bench/queue.ts [BASELINE_CHECKOUT (a directory with bin/weft, built)]\n");
  process.exit(2);
}
interface Checkout {
  name: string;
  root: string;
}
const checkouts: Checkout[] = [{ name: "this", root: resolve(import.meta.dirname, "..") }];
if (baseDir) checkouts.push({ name: "baseline", root: baseDir });

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
  c: Checkout = checkouts[0]!,
): Promise<{
  db: string;
  cwd?: string;
  done(): Promise<number>;
  close(): Promise<void>;
  /** The bench's own PostgreSQL backend (counting runs), left out of the server's CPU. */
  monitorPid?: number;
}> {
  // Made by the checkout whose workers use it: an older Weft refuses a schema newer than its own.
  const { openStores: open } = (await import(pathToFileURL(join(c.root, "src/store/open.ts")).href)) as {
    openStores: typeof openStores;
  };
  if (kind === "sqlite") {
    const dir = mkdtempSync(join(tmpdir(), "weft-qbench-"));
    const db = join(dir, "runs.db");
    await (await open(db)).close();
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
  await (await open(db)).close();
  const client = new pg.Client({ connectionString: db });
  await client.connect();
  const monitorPid = Number((await client.query("SELECT pg_backend_pid() AS pid")).rows[0].pid);
  return {
    db,
    monitorPid,
    done: async () =>
      Number((await client.query("SELECT count(*) AS n FROM weft.runs WHERE status = 'succeeded'")).rows[0].n),
    close: () => client.end(),
  };
}

/**
 * CPU milliseconds a process (and, with `children`, its direct children: PostgreSQL's backends, but not the
 * `except` one) has used.
 */
function cpuMs(pid: number | undefined, children = false, except?: number): number {
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
      if (s.ppid === pid && Number(p) !== except) ms += s.ms;
    }
  return ms;
}

type QueuedCpu = { worker: number; submit: number; redis: number; pg: number; idle: number; cold: number };
/** Per checkout/store/workers, one sample a round (medians printed: one round on a shared machine is noisy). */
const cpu = new Map<string, QueuedCpu[]>();
/** PostgreSQL's CPU (its backends and background processes) since the bench started, less the bench's counter. */
const pgCpu = (monitorPid?: number) => (cluster ? cpuMs(cluster.pid, true, monitorPid) : 0);

async function measure(c: Checkout, kind: string, workers: number): Promise<number> {
  const redis = await startRedis();
  const store = await freshStore(kind, c);
  const procs = Array.from({ length: workers }, (_, i) =>
    spawnWorker({
      name: `b${i}`,
      redisUrl: redis.url,
      db: store.db,
      cwd: store.cwd,
      concurrency: 8,
      lockMs: 30_000,
      bin: join(c.root, "bin/weft"),
    }),
  );
  await Promise.all(procs.map((p) => p.ready));
  // Warm-up: WARMUP runs per worker, their workers' CPU per run kept as the cold cost.
  const warm = WARMUP * workers;
  const cold0 = procs.reduce((a, p) => a + cpuMs(p.p.pid), 0);
  if (warm > 0) {
    await submitRuns(
      Array.from({ length: warm }, (_, i) => ({ workflow: wf, inputs: { n: `w${i}` } })),
      { redisUrl: redis.url },
    );
    while ((await store.done()) < warm) await new Promise((r) => setTimeout(r, 50));
  }
  const cold = warm > 0 ? (procs.reduce((a, p) => a + cpuMs(p.p.pid), 0) - cold0) / warm : 0;
  // Idle first: what the workers burn with nothing to do (ms of CPU per second per worker).
  const idle0 = procs.reduce((a, p) => a + cpuMs(p.p.pid), 0);
  const tIdle = performance.now();
  await new Promise((r) => setTimeout(r, IDLE_MS));
  const idle = (procs.reduce((a, p) => a + cpuMs(p.p.pid), 0) - idle0) / ((performance.now() - tIdle) / 1000) / workers;
  const cpu0 = procs.reduce((a, p) => a + cpuMs(p.p.pid), 0);
  const redis0 = cpuMs(redis.proc.pid);
  const pg0 = kind === "postgres" ? pgCpu(store.monitorPid) : 0;
  const t0 = performance.now();
  // The submitter's share: this process while it submits (not while it polls for the end, the bench's own cost).
  const submit0 = process.cpuUsage();
  await submitRuns(
    Array.from({ length: RUNS }, (_, i) => ({ workflow: wf, inputs: { n: String(i) } })),
    { redisUrl: redis.url },
  );
  const submitted = process.cpuUsage(submit0);
  while ((await store.done()) < RUNS + warm) await new Promise((r) => setTimeout(r, 50));
  const secs = (performance.now() - t0) / 1000;
  const key = `${c.name}/${kind}/${workers}`;
  cpu.set(key, [
    ...(cpu.get(key) ?? []),
    {
      worker: (procs.reduce((a, p) => a + cpuMs(p.p.pid), 0) - cpu0) / RUNS,
      submit: (submitted.user + submitted.system) / 1000 / RUNS,
      redis: (cpuMs(redis.proc.pid) - redis0) / RUNS,
      pg: kind === "postgres" ? (pgCpu(store.monitorPid) - pg0) / RUNS : 0,
      idle,
      cold,
    },
  ]);
  for (const p of procs) p.p.kill("SIGTERM");
  await Promise.all(procs.map((p) => p.exited));
  await store.close();
  await redis.stop();
  return RUNS / secs;
}

/**
 * CPU per run of the same workflow run in this process (the checkout's engine), warm, 8 runs at once; and
 * PostgreSQL's CPU per run meanwhile.
 */
async function inProcessCpu(c: Checkout, kind: string): Promise<{ own: number; pg: number }> {
  const mod = (p: string) => import(pathToFileURL(join(c.root, p)).href);
  const { runWorkflow } = await mod("src/engine/run.ts");
  const { openStores: open } = await mod("src/store/open.ts");
  const store = await freshStore(kind, c);
  const stores = await open(store.db);
  const batch = async (n: number) => {
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let i = next++; i < n; i = next++) {
          const r = await runWorkflow(wf, { inputs: { n: String(i) }, store: stores.runs });
          if (r.status !== "succeeded") throw new Error(`in-process run ${r.status}: ${r.error?.message}`);
        }
      }),
    );
  };
  await batch(40); // warm-up: JIT, statements prepared
  const pg0 = kind === "postgres" ? pgCpu(store.monitorPid) : 0;
  const c0 = process.cpuUsage();
  await batch(RUNS);
  const d = process.cpuUsage(c0);
  const pg = kind === "postgres" ? (pgCpu(store.monitorPid) - pg0) / RUNS : 0;
  await stores.close();
  await store.close();
  return { own: (d.user + d.system) / 1000 / RUNS, pg };
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
const local = new Map<string, { own: number; pg: number }[]>();
const inProcess = async (kind: string) => {
  for (const c of checkouts)
    local.set(`${c.name}/${kind}`, [...(local.get(`${c.name}/${kind}`) ?? []), await inProcessCpu(c, kind)]);
};
// The in-process runs are measured in every round too, next to the queued ones (the machine's load drifts).
for (let r = 0; r < REPEAT; r++) {
  for (const n of COUNTS)
    for (const kind of STORES)
      for (const c of checkouts) {
        const rps = await measure(c, kind, n);
        results.set(`${c.name}/${kind}/${n}/${r}`, rps);
        console.error(`  ${c.name} ${kind} ${n} worker(s), round ${r + 1}: ${rps.toFixed(1)} runs/s`);
      }
  for (const kind of STORES) await inProcess(kind);
}
for (let r = REPEAT; r < 3; r++) for (const kind of STORES) await inProcess(kind);
/** Each component's median over the rounds; `app` and `all` the medians of the rounds' totals. */
const medianCpu = (key: string): QueuedCpu & { app: number; all: number } => {
  const xs = cpu.get(key)!;
  const m = (f: (q: QueuedCpu) => number) => median(xs.map(f));
  return {
    worker: m((q) => q.worker),
    submit: m((q) => q.submit),
    redis: m((q) => q.redis),
    pg: m((q) => q.pg),
    idle: m((q) => q.idle),
    cold: m((q) => q.cold),
    app: m((q) => q.worker + q.submit + q.redis),
    all: m((q) => q.worker + q.submit + q.redis + q.pg),
  };
};
const rate = (c: string, kind: string, n: number) =>
  median(Array.from({ length: REPEAT }, (_, r) => results.get(`${c}/${kind}/${n}/${r}`)!));

console.log(
  `${RUNS} runs per measurement after ${WARMUP} per worker, median of ${REPEAT}; 4 node commits + 4 attempts per run`,
);
for (const c of checkouts)
  for (const kind of STORES) {
    const base = rate(c.name, kind, COUNTS[0]!);
    for (const n of COUNTS) {
      const rps = rate(c.name, kind, n);
      const vsSqlite =
        STORES.includes("sqlite") && kind !== "sqlite"
          ? `, ×${(rps / rate(c.name, "sqlite", n)).toFixed(2)} vs sqlite`
          : "";
      console.log(
        `${c.name.padEnd(8)} ${kind.padEnd(8)} ${n} worker(s): ${rps.toFixed(1).padStart(6)} runs/s ≈ ${(rps * 8).toFixed(0).padStart(5)} writes/s  (×${(rps / base).toFixed(2)} vs ${COUNTS[0]} worker${vsSqlite})`,
      );
    }
  }
for (const c of checkouts)
  for (const kind of STORES) {
    const samples = local.get(`${c.name}/${kind}`)!;
    const here = median(samples.map((x) => x.own));
    const herePg = median(samples.map((x) => x.pg));
    const pgNote = kind === "postgres" ? ` + PostgreSQL ${herePg.toFixed(2)} ms` : "";
    console.log(
      `${c.name.padEnd(8)} ${kind.padEnd(8)} in-process: ${here.toFixed(2)} ms CPU per run${pgNote} (median of ${Math.max(3, REPEAT)})`,
    );
    for (const n of COUNTS) {
      const q = medianCpu(`${c.name}/${kind}/${n}`);
      const app = q.app;
      const withPg =
        kind === "postgres"
          ? `; + PostgreSQL ${q.pg.toFixed(2)} ms, with it on both sides ${(q.all / (here + herePg)).toFixed(2)}×`
          : "";
      console.log(
        `${c.name.padEnd(8)} ${kind.padEnd(8)} ${n} worker(s), median of ${REPEAT}: workers ${q.worker.toFixed(2)} + submitter ${q.submit.toFixed(2)} + Redis ${q.redis.toFixed(2)} ms per run = ${(app / here).toFixed(2)}× in-process${withPg}; idle worker ${q.idle.toFixed(1)} ms CPU/s${WARMUP ? `; a fresh worker's first ${WARMUP} runs: ${q.cold.toFixed(2)} ms each` : ""}`,
      );
    }
  }
if (baseDir)
  for (const kind of STORES)
    for (const n of COUNTS) {
      const t = medianCpu(`this/${kind}/${n}`);
      const b = medianCpu(`baseline/${kind}/${n}`);
      console.log(
        `this/baseline ${kind} ${n} worker(s): runs/s ×${(rate("this", kind, n) / rate("baseline", kind, n)).toFixed(2)}, queued CPU per run ×${(t.app / b.app).toFixed(2)}`,
      );
    }
for (const kind of STORES)
  console.log(
    `${kind.padEnd(8)} store alone: ${(await commitRate(kind)).toFixed(0)} node commits/s (one process, 16 in flight)`,
  );
console.log(`machine: ${cpus().length} cores — scaling beyond the core count is not expected`);
await cluster?.stop();
process.exit(0);
