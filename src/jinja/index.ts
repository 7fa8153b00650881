import { createRequire } from "node:module";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { type PoolOutcome, WorkerPool } from "../util/worker-pool.js";
import { compileJinja, DEFAULT_BUDGET, type JinjaBudget, renderWithin, scaledBudget } from "./bounded.js";
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

/**
 * What a render may spend on the main thread before it is handed to a worker: steps × largest computed value
 * bounds its memory (2,000 × 10,000 characters, tens of MB at worst) and its time (about a millisecond).
 * Inputs larger than these caps go to a worker at once; a template that needs more starts again from nothing
 * in a worker under the full budget (steps, memory, wall time, output).
 */
const INLINE_BUDGET: Omit<JinjaBudget, "maxOutput"> = {
  maxSteps: 2_000,
  maxRange: 2_000,
  maxItems: 2_000,
  maxChars: 10_000,
};
/** Failures of the inline budget, not of the template: the worker decides those renders. */
const OVER_INLINE = new Set(["jinja.too_many_steps", "jinja.too_large", "jinja.too_deep"]);

/** The inline budget under the default budget: most renders pass no budget of their own. */
const DEFAULT_INLINE = inlineBudget(DEFAULT_BUDGET);

function inlineBudget(budget: JinjaBudget): JinjaBudget {
  return {
    maxSteps: Math.min(INLINE_BUDGET.maxSteps, budget.maxSteps),
    maxRange: Math.min(INLINE_BUDGET.maxRange, budget.maxRange),
    maxItems: Math.min(INLINE_BUDGET.maxItems, budget.maxItems),
    maxChars: Math.min(INLINE_BUDGET.maxChars, budget.maxChars),
    maxOutput: budget.maxOutput,
  };
}

/** The render within the inline budget, or undefined when it needs more than that (or a caller's smaller budget). */
function renderInline(source: string, vars: Record<string, unknown>, budget: JinjaBudget): string | undefined {
  const inline = budget === DEFAULT_BUDGET ? DEFAULT_INLINE : inlineBudget(budget);
  // Large inputs raise the caps on computed values (see scaledBudget): only a worker renders those.
  const scaled = scaledBudget(inline, vars);
  if (scaled.maxChars > inline.maxChars || scaled.maxItems > inline.maxItems) return undefined;
  try {
    return renderWithin(source, vars, scaled);
  } catch (e) {
    if (e instanceof JinjaError && OVER_INLINE.has(e.code)) return undefined;
    throw e;
  }
}

// Built, this file is dist/jinja/index.js beside bounded.js; from source the worker needs tsx to load .ts.
const FROM_SOURCE = import.meta.url.endsWith(".ts");

function getPool(): WorkerPool<Job, Reply> {
  pool ??= new WorkerPool<Job, Reply>({
    size: Math.max(2, Math.min(4, availableParallelism())),
    source: JINJA_WORKER_SOURCE,
    workerOptions: {
      workerData: {
        tsxApi: FROM_SOURCE ? createRequire(import.meta.url).resolve("tsx/cjs/api") : undefined,
        module: fileURLToPath(new URL(FROM_SOURCE ? "./bounded.ts" : "./bounded.js", import.meta.url)),
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
 * autoescape, the trailing newline dropped): on the main thread within a small step budget, otherwise
 * off the main thread, where a template bomb fails with a typed jinja.* error and never blocks or crashes
 * the process. Known deviations of the library
 * from CPython Jinja2: `True`/`None` print as `true`/empty.
 */
export async function renderJinja(
  source: string,
  vars: Record<string, unknown>,
  options: RenderOptions = {},
): Promise<string> {
  const timeoutMs = options.timeoutMs ?? JINJA_TIMEOUT_MS;
  const budget = options.budget ? { ...DEFAULT_BUDGET, ...options.budget } : DEFAULT_BUDGET;
  if (options.signal?.aborted)
    throw new JinjaError("jinja.cancelled", "template rendering was stopped (node timeout or cancelled run)");
  // Most templates finish within a few thousand steps: rendered here, without a thread round trip.
  const inline = renderInline(source, vars, budget);
  if (inline !== undefined) return inline;
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
