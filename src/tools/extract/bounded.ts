import { existsSync, readdirSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type PoolOutcome, WorkerPool } from "../../util/worker-pool.js";
import { DocumentError } from "../errors.js";
import type { ExtractLimits } from "./limits.js";
import type { ExtractJob, ExtractReply } from "./run.js";
import { EXTRACT_WORKER_SOURCE } from "./worker-source.js";

/**
 * Built-in extractors run here: in a small pool of worker threads, each with a heap limit, and a wall
 * clock per job after which the thread is terminated (and replaced on the next job). A document bomb
 * then costs one thread, never the process: the V8 out-of-memory that killed `weft kb add` and the
 * server is the thread's ERR_WORKER_OUT_OF_MEMORY, reported as document.memory.
 */

// Two threads: one bomb being timed out does not stall every other upload, and the machine has 2 cores.
const POOL_SIZE = Math.max(1, Math.min(2, availableParallelism()));
/** Pools by heap size, the one limit fixed when a thread starts; the others travel with each job. */
const pools = new Map<number, WorkerPool<ExtractJob, ExtractReply>>();

// Built, this file is dist/tools/extract/bounded.js beside run.js. From source (vitest, tsx) the thread
// loads the built twin when dist/ is newer than every source file (the test setup builds it): loading
// the extractors through tsx in each thread costs about 5 s and 200 MB of heap. Otherwise, tsx.
const FROM_SOURCE = import.meta.url.endsWith(".ts");

/** What the thread imports: `module`, through tsx's ESM API when `tsxApi` is set. */
function threadModule(): { module: string; tsxApi?: string } {
  const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));
  if (!FROM_SOURCE) return { module: here("./run.js") };
  const twin = here("../../../dist/tools/extract/run.js");
  if (existsSync(twin) && newestMtime(here("../..")) <= mtimeOf(here("../../../dist/.built"))) return { module: twin };
  // require.resolve finds tsx's CommonJS API, which cannot load ESM from an eval'd thread: take its .mjs twin.
  const tsxApi = createRequire(import.meta.url)
    .resolve("tsx/esm/api")
    .replace(/\.cjs$/, ".mjs");
  return { module: here("./run.ts"), tsxApi };
}

function mtimeOf(path: string): number {
  return existsSync(path) ? statSync(path).mtimeMs : 0;
}

function newestMtime(dir: string): number {
  let newest = 0;
  for (const name of readdirSync(dir, { recursive: true }) as string[]) {
    newest = Math.max(newest, statSync(join(dir, name)).mtimeMs);
  }
  return newest;
}

function poolFor(heapMb: number): WorkerPool<ExtractJob, ExtractReply> {
  let pool = pools.get(heapMb);
  if (!pool) {
    pool = new WorkerPool<ExtractJob, ExtractReply>({
      size: POOL_SIZE,
      source: EXTRACT_WORKER_SOURCE,
      workerOptions: {
        workerData: threadModule(),
        resourceLimits: { maxOldGenerationSizeMb: heapMb, stackSizeMb: 4 },
      },
      startupMs: 60_000,
    });
    pools.set(heapMb, pool);
  }
  return pool;
}

/** Text of `bytes` by the built-in extractor for `ext`, or a DocumentError (the file's name is added by the caller). */
export async function extractBounded(
  ext: string,
  bytes: Uint8Array,
  limits: ExtractLimits,
  signal?: AbortSignal,
): Promise<string> {
  const outcome = await poolFor(limits.heapMb).run({ ext, bytes, limits }, limits.timeoutMs, signal);
  return settle(outcome, limits);
}

function settle(o: PoolOutcome<ExtractReply>, limits: ExtractLimits): string {
  switch (o.kind) {
    case "reply":
      if (o.reply.ok) return o.reply.text;
      throw new DocumentError(o.reply.code, o.reply.message, o.reply.details);
    case "timeout":
      throw new DocumentError(
        "document.timeout",
        `extraction took longer than ${limits.timeoutMs} ms and was stopped`,
        {
          limit: "timeoutMs",
          timeoutMs: limits.timeoutMs,
        },
      );
    case "aborted":
      throw new DocumentError("document.cancelled", "extraction was stopped (node timeout or cancelled run)");
    case "crashed":
      if (o.error.code === "ERR_WORKER_OUT_OF_MEMORY") {
        throw new DocumentError(
          "document.memory",
          `extraction needed more than ${limits.heapMb} MB of memory and was stopped`,
          {
            limit: "heapMb",
            heapMb: limits.heapMb,
          },
        );
      }
      throw new DocumentError("document.unavailable", `the extraction thread failed: ${o.error.message}`);
    case "unsendable":
      throw new DocumentError(
        "document.extract_failed",
        `the file cannot be passed to the extractor: ${o.error.message}`,
      );
    case "unavailable":
      throw new DocumentError("document.unavailable", `the extraction thread could not start: ${o.error.message}`);
  }
}

/** Stops the extraction threads (graceful shutdown, tests). Idle threads never keep a process alive. */
export async function closeExtractionWorkers(): Promise<void> {
  const all = [...pools.values()];
  pools.clear();
  await Promise.all(all.map((p) => p.close()));
}
