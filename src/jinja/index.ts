import { createRequire } from "node:module";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { type PoolOutcome, WorkerPool } from "../util/worker-pool.js";
import { compileJinja, DEFAULT_BUDGET, type JinjaBudget } from "./bounded.js";
import { JinjaError, type JinjaErrorCode } from "./errors.js";
import { JINJA_WORKER_SOURCE } from "./worker-source.js";

export { DEFAULT_BUDGET, type JinjaBudget, renderBounded } from "./bounded.js";
export { JinjaError, type JinjaErrorCode } from "./errors.js";

/** Dify caps rendered template output (TEMPLATE_TRANSFORM_MAX_LENGTH). */
export const TEMPLATE_MAX_LENGTH = DEFAULT_BUDGET.maxOutput;
/** Wall clock of one render when the caller sets none; a node's `timeout_seconds` cuts it shorter. */
export const JINJA_TIMEOUT_MS = 10_000;
/** Heap of one render thread: a template that needs more fails with jinja.memory. */
export const JINJA_HEAP_MB = 256;

export interface RenderOptions {
  /** Aborting (the node's timeout, a cancelled run) kills the render at once. */
  signal?: AbortSignal;
  timeoutMs?: number;
  budget?: Partial<JinjaBudget>;
}

interface Job {
  source: string;
  vars: Record<string, unknown>;
  budget: JinjaBudget;
}
type Reply =
  | { ok: true; text: string }
  | { ok: false; code: JinjaErrorCode; message: string; details: Record<string, unknown> };

let pool: WorkerPool<Job, Reply> | undefined;

function getPool(): WorkerPool<Job, Reply> {
  pool ??= new WorkerPool<Job, Reply>({
    size: Math.max(2, Math.min(4, availableParallelism())),
    source: JINJA_WORKER_SOURCE,
    workerOptions: {
      workerData: {
        tsxApi: createRequire(import.meta.url).resolve("tsx/cjs/api"),
        module: fileURLToPath(new URL("./bounded.ts", import.meta.url)),
      },
      resourceLimits: { maxOldGenerationSizeMb: JINJA_HEAP_MB, stackSizeMb: 4 },
    },
    startupMs: 60_000,
  });
  return pool;
}

/** Parse only: the syntax error message, or undefined when the template is well-formed. */
export function jinjaSyntaxError(source: string): string | undefined {
  try {
    compileJinja(source);
    return undefined;
  } catch (e) {
    return (e as Error).message.replace(/^template syntax error: /, "");
  }
}

/**
 * Render with Jinja2 semantics as Dify's template-transform does (undefined names render empty, no
 * autoescape, the trailing newline dropped), off the main thread: a template bomb fails with a
 * typed jinja.* error and never blocks or crashes the process. Known deviations of the library
 * from CPython Jinja2: `True`/`None` print as `true`/empty.
 */
export async function renderJinja(
  source: string,
  vars: Record<string, unknown>,
  options: RenderOptions = {},
): Promise<string> {
  const timeoutMs = options.timeoutMs ?? JINJA_TIMEOUT_MS;
  const budget = { ...DEFAULT_BUDGET, ...options.budget };
  const outcome = await getPool().run({ source, vars, budget }, timeoutMs, options.signal);
  return settle(outcome, timeoutMs);
}

function settle(o: PoolOutcome<Reply>, timeoutMs: number): string {
  switch (o.kind) {
    case "reply":
      if (o.reply.ok) return o.reply.text;
      throw new JinjaError(o.reply.code, o.reply.message, o.reply.details);
    case "timeout":
      throw new JinjaError("jinja.timeout", `template rendering took longer than ${timeoutMs} ms`, { timeoutMs });
    case "aborted":
      throw new JinjaError("jinja.cancelled", "template rendering was stopped (node timeout or cancelled run)");
    case "crashed":
      if (o.error.code === "ERR_WORKER_OUT_OF_MEMORY") {
        throw new JinjaError("jinja.memory", `template rendering needed more than ${JINJA_HEAP_MB} MB of memory`, {
          limitMb: JINJA_HEAP_MB,
        });
      }
      throw new JinjaError("jinja.unavailable", `the template renderer failed: ${o.error.message}`);
    case "unsendable":
      throw new JinjaError(
        "jinja.bad_input",
        `template variables cannot be passed to the renderer: ${o.error.message}`,
      );
    case "unavailable":
      throw new JinjaError("jinja.unavailable", `the template renderer could not start: ${o.error.message}`);
  }
}

/** Stops the render threads (graceful shutdown, tests). Idle threads never keep a process alive. */
export async function closeJinjaWorkers(): Promise<void> {
  const p = pool;
  pool = undefined;
  await p?.close();
}
