// Queue throughput: runs/second with 1, 2 and 4 `weft worker` processes sharing one Redis and one
// SQLite run store, on a small deterministic workflow. Needs redis-server on PATH.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { submitRuns } from "../src/queue/index.js";
import { openStores } from "../src/store/open.js";
import { openSqlite } from "../src/store/sqlite/database.js";
import { buildWorkflow, tpl } from "../test/support/build.js";

const root = resolve(import.meta.dirname, "..");
const tsx = `file://${join(root, "node_modules/tsx/dist/esm/index.mjs")}`;
const RUNS = Number(process.env.RUNS ?? 400);

const port = await new Promise<number>((res) => {
  const s = createServer().listen(0, "127.0.0.1", () => {
    const p = (s.address() as { port: number }).port;
    s.close(() => res(p));
  });
});
const redis = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: "ignore" });
const redisUrl = `redis://127.0.0.1:${port}`;
await new Promise((r) => setTimeout(r, 300));

const wf = buildWorkflow({
  nodes: [
    { id: "start", type: "start", variables: [{ variable: "n", type: "text-input" }] },
    tpl("a", "a{{ n }}", { n: ["start", "n"] }),
    tpl("b", "{{ a }}b", { a: ["a", "output"] }),
    { id: "end", type: "end", outputs: [{ variable: "out", value_selector: ["b", "output"] }] },
  ],
  edges: [["start", "a"], ["a", "b"], ["b", "end"]],
});

async function measure(workers: number): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), "weft-qbench-"));
  const db = join(dir, "runs.db");
  await (await openStores(db)).close();
  const procs: ChildProcess[] = [];
  await Promise.all(
    Array.from({ length: workers }, (_, i) => {
      const p = spawn(process.execPath, ["--import", tsx, join(root, "src/cli/main.ts"), "worker", "--redis", redisUrl, "--db", db, "--concurrency", "8", "--name", `b${i}`], { cwd: dir, stdio: ["ignore", "ignore", "pipe"] });
      procs.push(p);
      return new Promise<void>((res) => p.stderr!.on("data", (d) => String(d).includes("ready") && res()));
    }),
  );
  const sqlite = openSqlite(db);
  const t0 = performance.now();
  await submitRuns(Array.from({ length: RUNS }, (_, i) => ({ workflow: wf, inputs: { n: String(i) } })), { redisUrl });
  // Count with SQL: listing runs would parse every stored workflow and slow the measurement itself.
  const done = sqlite.prepare("SELECT COUNT(*) AS n FROM runs WHERE status = 'succeeded'");
  while ((done.get() as { n: number }).n < RUNS) await new Promise((r) => setTimeout(r, 50));
  const secs = (performance.now() - t0) / 1000;
  sqlite.close();
  for (const p of procs) p.kill("SIGTERM");
  return RUNS / secs;
}

const results: Array<[number, number]> = [];
for (const n of [1, 2, 4]) results.push([n, await measure(n)]);
const base = results[0]![1];
for (const [n, rps] of results) console.log(`${n} worker(s): ${rps.toFixed(1)} runs/s  (×${(rps / base).toFixed(2)} vs 1 worker)`);
console.log(`machine: ${(await import("node:os")).cpus().length} cores — scaling beyond the core count is not expected`);
redis.kill("SIGKILL");
process.exit(0);
