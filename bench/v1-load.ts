// POST /v1/workflows/run (blocking) against `weft serve` of one or two checkouts, in one run: c clients each
// sending requests back to back for a fixed time, per client count; req/s, p50 and p99. Then, under
// `strace -f` (when installed), a fixed number of requests at 16 clients to count fsync + fdatasync per request,
// by file and by thread (main thread: the event loop waits; pool: libuv's threads).
// Usage: npx tsx bench/v1-load.ts [--baseline DIR] [--clients 1,16,64] [--seconds 8] [--db postgres://… | --pg]
//        [--warm-requests 500] [--strace-requests 320]
// DIR is another checkout with its dist/ built (e.g. `git archive main | tar -x -C DIR`, node_modules linked,
// `node scripts/build.mjs`). With --db, a PostgreSQL database per checkout is made from that server URL's
// database name plus a suffix (the URL's user must be allowed to CREATE DATABASE).
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { startPostgres } from "../test/support/postgres.js";
import { countSyncs } from "./support/sync-trace.js";
import { fiveNodeWorkflow } from "./support/v1-workflow.js";

const arg = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const CLIENTS = (arg("clients") ?? "1,16,64").split(",").map(Number);
const SECONDS = Number(arg("seconds") ?? 8);
const STRACE_REQUESTS = Number(arg("strace-requests") ?? 320);
const WARM_REQUESTS = Number(arg("warm-requests") ?? 500);
const baseline = arg("baseline");
// --pg: a throwaway PostgreSQL cluster with fsync and synchronous_commit on (test/support/postgres.ts), stopped at the end.
const ownCluster = process.argv.includes("--pg") ? await startPostgres({ durable: true }) : undefined;
// --pg-query ?pool_max=N: Weft's parameters on the cluster's URL (a URL given with --db carries its own).
const pgBase = ownCluster ? `${ownCluster.url("postgres")}${arg("pg-query") ?? ""}` : arg("db");
const here = resolve(import.meta.dirname, "..");
const hasStrace = existsSync("/usr/bin/strace");

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] ?? Number.NaN;
};

function weft(root: string, args: string[]): string {
  return execFileSync(process.execPath, [join(root, "dist/cli/main.js"), ...args], { encoding: "utf8" });
}

let pgCount = 0;
async function freshDb(dir: string): Promise<string> {
  if (!pgBase) return join(dir, "weft.db");
  const { default: pg } = await import("pg");
  const name = `bench_v1_${process.pid}_${pgCount++}`;
  const admin = new pg.Client({ connectionString: pgBase });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const u = new URL(pgBase);
  u.pathname = `/${name}`;
  return u.toString();
}

interface Served {
  url: string;
  key: string;
  /** The server process's CPU time so far (user + system, ms), from /proc; undefined under strace or off Linux. */
  cpuMs(): number | undefined;
  stop(): Promise<void>;
}

/** utime + stime of a process (all its threads: libuv's pool included), in ms. */
function processCpuMs(pid: number): number | undefined {
  try {
    // Fields after the command name (which may hold spaces, so split after its closing parenthesis).
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}
const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
  } catch {
    return 100;
  }
})();

async function serve(root: string, db: string, strace?: string): Promise<Served> {
  // Older checkouts (the baseline) have no --no-schedules; the bench's app has no schedules either way.
  const cli = [join(root, "dist/cli/main.js"), "serve", "--db", db, "--port", "0"];
  if (weft(root, ["serve", "--help"]).includes("--no-schedules")) cli.push("--no-schedules");
  const [cmd, args] = strace
    ? [
        "strace",
        ["-f", "--seccomp-bpf", "-ttt", "-y", "-e", "trace=fsync,fdatasync", "-o", strace, process.execPath, ...cli],
      ]
    : [process.execPath, cli];
  // Its own process group: a stop reaches the server under strace too (strace alone would just detach).
  const child: ChildProcess = spawn(cmd as string, args as string[], {
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let out = "";
  let err = "";
  child.stderr!.on("data", (d) => (err += d));
  const url = await new Promise<string>((res, rej) => {
    child.stdout!.on("data", (d) => {
      out += d;
      const m = /weft serving on (\S+)/.exec(out);
      if (m) res(m[1]!);
    });
    child.on("exit", () => rej(new Error(`weft serve ended: ${err}`)));
  });
  const exited = new Promise<void>((r) => child.on("exit", () => r()));
  return {
    url,
    key: "",
    cpuMs: () => (strace ? undefined : processCpuMs(child.pid!)),
    stop: async () => {
      process.kill(-child.pid!, "SIGINT");
      await exited;
    },
  };
}

/**
 * Wait until the server takes no CPU tick (10 ms at CLK_TCK 100) in 250 ms (at most 15 s): what it still does after the
 * warm-up load (start-up warm-up, JIT) is not the requests' cost. Returns the seconds waited.
 */
async function untilIdle(s: Served): Promise<number> {
  const t0 = performance.now();
  let last = s.cpuMs();
  if (last === undefined) return 0;
  while (performance.now() - t0 < 15_000) {
    await new Promise((r) => setTimeout(r, 250));
    const now = s.cpuMs()!;
    if (now - last < 5) break;
    last = now;
  }
  return (performance.now() - t0) / 1000;
}

async function load(s: Served, clients: number, until: { seconds?: number; requests?: number }) {
  const lat: number[] = [];
  let failed = 0;
  let sent = 0;
  const end = performance.now() + (until.seconds ?? 1e9) * 1000;
  const body = JSON.stringify({ inputs: { text: "hello" }, response_mode: "blocking", user: "bench" });
  const client = async () => {
    while (performance.now() < end && (until.requests === undefined || sent < until.requests)) {
      sent++;
      const t0 = performance.now();
      const res = await fetch(`${s.url}/v1/workflows/run`, {
        method: "POST",
        headers: { authorization: `Bearer ${s.key}`, "content-type": "application/json" },
        body,
      });
      const json = (await res.json()) as { data?: { status?: string; outputs?: { out?: string } } };
      if (res.status !== 200 || json.data?.status !== "succeeded" || json.data.outputs?.out !== "hello") failed++;
      else lat.push(performance.now() - t0);
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: clients }, client));
  const secs = (performance.now() - t0) / 1000;
  return { rps: lat.length / secs, p50: pct(lat, 50), p99: pct(lat, 99), ok: lat.length, failed };
}

async function bench(label: string, root: string) {
  const dir = mkdtempSync(join(tmpdir(), "weft-v1-load-"));
  try {
    const wf = join(dir, "five.json");
    writeFileSync(wf, JSON.stringify(fiveNodeWorkflow));
    const setup = async () => {
      const db = await freshDb(dir);
      const appId = weft(root, ["apps", "import", wf, "--db", db]).trim().split("\n").at(-1)!;
      const key = /app-\S+/.exec(weft(root, ["keys", "create", "--app", appId, "--db", db]))![0];
      return { db, key };
    };
    const rows: string[] = [];
    for (const c of CLIENTS) {
      const { db, key } = await setup();
      const s = await serve(root, db);
      s.key = key;
      // Warm-up (JIT, connections): 1 s and at least WARM_REQUESTS requests (at c=1 on a busy machine 1 s was a
      // few dozen requests, and TurboFan still compiled for over a second in the measured ones, both sides).
      const warm = await load(s, Math.min(c, 4), { seconds: 1 });
      if (warm.ok < WARM_REQUESTS) await load(s, 4, { requests: WARM_REQUESTS - warm.ok });
      // Then until the server is idle, on both sides: a server's own start-up work (src/server/warmup.ts, ~1.3 s
      // of CPU) otherwise lands in the measured seconds, about 1 ms per request at c=1.
      const quiet = await untilIdle(s);
      const cpu0 = s.cpuMs();
      const r = await load(s, c, { seconds: SECONDS });
      const cpu1 = s.cpuMs();
      await s.stop();
      // Server CPU per request: on a shared machine throughput is the CPU's share, this is the server's cost.
      const cpu = cpu0 !== undefined && cpu1 !== undefined ? `  cpu ${((cpu1 - cpu0) / r.ok).toFixed(2)} ms/req` : "";
      rows.push(
        `${label.padEnd(9)} c=${String(c).padEnd(3)} ${r.rps.toFixed(1).padStart(7)} req/s  p50 ${r.p50.toFixed(1)} ms  p99 ${r.p99.toFixed(1)} ms${cpu}  (${r.ok} ok, ${r.failed} failed; idle after ${quiet.toFixed(1)} s)`,
      );
      console.log(rows.at(-1));
    }
    let perRequest: number | undefined;
    // On PostgreSQL the syncs are the database server's, not this process's: nothing to count here.
    if (hasStrace && !pgBase && STRACE_REQUESTS > 0) {
      const { db, key } = await setup();
      const trace = join(dir, "strace.txt");
      const s = await serve(root, db, trace);
      s.key = key;
      // Only the syncs made while requests are served count: start-up (schema) and shutdown are shown apart.
      await new Promise((r) => setTimeout(r, 200));
      const from = Date.now();
      const r = await load(s, 16, { requests: STRACE_REQUESTS });
      const to = Date.now();
      await s.stop();
      const counts = countSyncs(readFileSync(trace, "utf8"), [from, to]);
      perRequest = counts.inWindow / r.ok;
      console.log(
        `${label.padEnd(9)} fsync+fdatasync per request at c=16: ${perRequest.toFixed(2)} (${counts.inWindow} calls while serving ${r.ok} requests; ${counts.total - counts.inWindow} at start-up and shutdown)`,
      );
      for (const [kind, n] of [...counts.byKind].sort((a, b) => b[1] - a[1]))
        console.log(`${" ".repeat(11)}${(n / r.ok).toFixed(2)}/request  ${kind}`);
    }
    return { rows, perRequest };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

console.log(
  `load average at start: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}`,
);
if (baseline) await bench("baseline", resolve(baseline));
await bench("this", here);
console.log(
  `load average at end: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}`,
);
await ownCluster?.stop();
