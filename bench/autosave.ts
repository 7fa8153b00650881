/**
 * Server CPU of an autosave of a 100-node draft (PUT /api/apps/:id/draft through the HTTP app: auth, body, schema
 * check, analysis, store write, answer), cold and warm. Cold is the first save after a server start, so it runs in
 * fresh processes: each opens a SQLite database as `weft serve` does (with its start-up warm-up, which the
 * server runs off the request path), creates the app, then times its first save, then WARM more and times the
 * last ITER of them. process.cpuUsage counts every thread, so V8's compiler threads are in the figures.
 *
 *   npx tsx bench/autosave.ts [processes=7] [--no-warmup]
 *
 * `--no-warmup` skips the start-up warm-up, to see what it saves the first user.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ITER = 40;
const WARM = 200;

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;

interface ChildResult {
  warmupMs: number;
  first: number[];
  warm: number[];
}

async function child(warmup: boolean): Promise<ChildResult> {
  const { openDeps, createApp } = await import("../src/server/index.js");
  const { warmDraftPathInBackground } = await import("../src/server/warmup.js");
  const { scratchAppStore } = await import("../src/store/scratch.js");
  const { genWorkflow } = await import("../test/analysis/gen.js");
  const dir = mkdtempSync(join(tmpdir(), "weft-bench-autosave-"));
  try {
    const deps = await openDeps({ db: join(dir, "weft.db") });
    const app = createApp(deps);
    const c0 = cpuMs();
    // What `weft serve` runs after listen (src/server/index.ts), awaited here so the first save comes after it.
    if (warmup)
      await warmDraftPathInBackground({
        app,
        scratchStore: () => scratchAppStore(deps.stores.kind),
        scratch: (apps) => createApp({ ...deps, apps }),
      }).done;
    const warmupMs = cpuMs() - c0;
    const { key } = await deps.apps.createKey("bench");
    const wf = genWorkflow(100, 42);
    const { app: rec } = await deps.apps.createApp({ name: "big", mode: wf.mode }, wf, "create");
    const save = async (i: number) => {
      // Each save moves one node, as a drag would: the body differs every time, the work does not.
      const body = JSON.stringify({
        workflow: { ...wf, nodes: wf.nodes.map((n, j) => (j === 1 ? { ...n, position: { x: i, y: 0 } } : n)) },
      });
      const c = cpuMs();
      const res = await app.request(`/api/apps/${rec.id}/draft`, {
        method: "PUT",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body,
      });
      await res.arrayBuffer();
      const ms = cpuMs() - c;
      if (res.status !== 200) throw new Error(`save answered ${res.status}`);
      return ms;
    };
    const first: number[] = [];
    for (let i = 0; i < 5; i++) first.push(await save(i));
    for (let i = 0; i < WARM; i++) await save(i);
    const warm: number[] = [];
    for (let i = 0; i < ITER; i++) warm.push(await save(i));
    deps.hub.stopLeases();
    deps.paused.stop();
    await deps.stores.close();
    return { warmupMs, first, warm };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function runChild(warmup: boolean): Promise<ChildResult> {
  const self = fileURLToPath(import.meta.url);
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ["--import", "tsx", self, "--child", warmup ? "warm" : "cold"], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    p.stdout.on("data", (b) => (out += b));
    p.on("error", reject);
    p.on("exit", (code) =>
      code === 0 ? resolve(JSON.parse(out.trim().split("\n").at(-1)!)) : reject(new Error(`child exited ${code}`)),
    );
  });
}

async function main(): Promise<void> {
  const n = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 7);
  const modes = process.argv.includes("--no-warmup") ? [false] : [true, false];
  for (const warmup of modes) {
    const results: ChildResult[] = [];
    for (let i = 0; i < n; i++) results.push(await runChild(warmup));
    const at = (k: number) => results.map((r) => r.first[k]!);
    const warm = results.flatMap((r) => r.warm);
    const f = (x: number) => x.toFixed(2);
    console.log(
      `${warmup ? "with start-up warm-up" : "without warm-up     "} (${n} fresh processes): ` +
        `1st save median ${f(pct(at(0), 0.5))} ms (max ${f(Math.max(...at(0)))}), 2nd ${f(pct(at(1), 0.5))} ms, 5th ${f(pct(at(4), 0.5))} ms; ` +
        `warm p50 ${f(pct(warm, 0.5))} ms, p90 ${f(pct(warm, 0.9))} ms; cold/warm ${f(pct(at(0), 0.5) / pct(warm, 0.5))}x` +
        (warmup
          ? `; warm-up at start ${f(
              pct(
                results.map((r) => r.warmupMs),
                0.5,
              ),
            )} ms CPU`
          : ""),
    );
  }
}

if (process.argv[2] === "--child") {
  const r = await child(process.argv[3] === "warm");
  process.stdout.write(`${JSON.stringify(r)}\n`);
  process.exit(0);
} else await main();
