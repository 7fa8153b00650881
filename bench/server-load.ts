// Server load test on loopback: N concurrent runs of a small workflow, each watched over its own SSE stream.
// Checks that no event is lost (every stream has contiguous ids, starts with run_started, ends with
// run_finished, and equals the log the server stored) and prints p50/p99 of start → run_finished latency.
// Usage: npx tsx bench/server-load.ts [--runs 200] [--timeout-s 120] [--synchronous-normal]
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createParser } from "eventsource-parser";
import { startServer } from "../src/server/index.js";
import { corpusFile } from "../test/server/helpers.js";

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const RUNS = arg("runs", 200);
const SYNC = process.argv.includes("--synchronous-normal") ? "normal" : "full";
const TIMEOUT_MS = arg("timeout-s", 120) * 1000;
const FIXTURE = corpusFile(
  "Akabane71__dify-workflow-cli/tests/fixtures/workflow/conditional_hello_branching_workflow.yml",
);

interface Ev {
  id: number;
  data: { type: string; nodeId?: string; status?: string };
}

async function readStream(res: Response): Promise<{ events: Ev[]; finishedAt?: number }> {
  if (!res.ok) throw new Error(`events: HTTP ${res.status} ${await res.text()}`);
  const events: Ev[] = [];
  let finishedAt: number | undefined;
  const parser = createParser({
    onEvent: (e) => {
      const data = JSON.parse(e.data);
      events.push({ id: Number(e.id), data });
      if (data.type === "run_finished") finishedAt = performance.now();
    },
  });
  const dec = new TextDecoder();
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>)
    parser.feed(dec.decode(chunk, { stream: true }));
  return { events, finishedAt };
}

function problems(events: Ev[]): string[] {
  const out: string[] = [];
  events.forEach((e, i) => {
    if (e.id !== i) out.push(`event ${i} has id ${e.id}`);
  });
  if (events[0]?.data.type !== "run_started") out.push(`first event is ${events[0]?.data.type}`);
  if (events.at(-1)?.data.type !== "run_finished") out.push(`last event is ${events.at(-1)?.data.type}`);
  const started = events.filter((e) => e.data.type === "node_started").map((e) => e.data.nodeId);
  const finished = new Set(events.filter((e) => e.data.type === "node_finished").map((e) => e.data.nodeId));
  for (const n of started) if (!finished.has(n)) out.push(`node ${n} started but never finished`);
  return out;
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
};

async function main(): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), "weft-load-"));
  const server = await startServer({ db: join(dir, "weft.db"), port: 0, synchronous: SYNC });
  const { key } = await server.deps.apps.createKey("load");
  const auth = { authorization: `Bearer ${key}` };
  const deadline = AbortSignal.timeout(TIMEOUT_MS);
  try {
    const imp = await fetch(`${server.url}/api/apps/import`, {
      method: "POST",
      headers: auth,
      body: readFileSync(FIXTURE, "utf8"),
    });
    const appId = ((await imp.json()) as { app: { id: string } }).app.id;
    const oneRun = async (i: number) => {
      const start = performance.now();
      const res = await fetch(`${server.url}/api/apps/${appId}/runs`, {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: JSON.stringify({ inputs: { query: i % 2 ? `hello ${i}` : `bye ${i}` } }),
        signal: deadline,
      });
      if (res.status !== 202) throw new Error(`run ${i}: HTTP ${res.status} ${await res.text()}`);
      const { runId } = (await res.json()) as { runId: string };
      const live = await readStream(
        await fetch(`${server.url}/api/runs/${runId}/events`, { headers: auth, signal: deadline }),
      );
      return { runId, start, ...live };
    };
    // Warm-up: module loading and JIT on the first runs are not what this measures.
    for (let i = 0; i < 5; i++) await oneRun(i);
    const t0 = performance.now();
    const results = await Promise.all(Array.from({ length: RUNS }, (_, i) => oneRun(i)));
    const wall = performance.now() - t0;
    let lost = 0;
    const latencies: number[] = [];
    for (const r of results) {
      const stored = await readStream(
        await fetch(`${server.url}/api/runs/${r.runId}/events`, { headers: auth, signal: deadline }),
      );
      const issues = problems(r.events);
      if (JSON.stringify(stored.events) !== JSON.stringify(r.events))
        issues.push(`live stream had ${r.events.length} events, stored log ${stored.events.length}`);
      if (issues.length) {
        lost++;
        process.stderr.write(`run ${r.runId}: ${issues.join("; ")}\n`);
      }
      if (r.finishedAt !== undefined) latencies.push(r.finishedAt - r.start);
    }
    const events = results.reduce((n, r) => n + r.events.length, 0);
    console.log(
      `${RUNS} concurrent SSE runs (SQLite synchronous=${SYNC}) in ${wall.toFixed(0)} ms (${((RUNS / wall) * 1000).toFixed(1)} runs/s, ${events} events)`,
    );
    console.log(
      `start → run_finished latency: p50 ${pct(latencies, 50).toFixed(1)} ms, p99 ${pct(latencies, 99).toFixed(1)} ms, max ${Math.max(...latencies).toFixed(1)} ms`,
    );
    console.log(lost === 0 ? "no lost events" : `${lost} run(s) lost or reordered events`);
    return lost === 0 && latencies.length === RUNS ? 0 : 1;
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

process.exitCode = await main();
