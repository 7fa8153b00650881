import { createRequire } from "node:module";
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import type { SandboxLimits } from "../ir/services.js";
import { clip, SandboxError } from "./errors.js";
import { runInline } from "./inline-javascript.js";
import { JS_WORKER_SOURCE } from "./js-worker-source.js";
import { encodeInputs, parseResult } from "./json.js";
import type { DumpedError, GuestReply } from "./quickjs-guest-source.js";

/**
 * JavaScript code nodes run in QuickJS compiled to WebAssembly, inside worker threads. The guest
 * sees only ECMAScript built-ins: no require, process, fetch, timers or host objects exist in its
 * global scope, and values cross the boundary as JSON strings only, so no host object is ever
 * reachable from inside. The worker lets the host enforce the deadline even while QuickJS is stuck
 * in a long builtin, by terminating the thread.
 */

/** After the deadline the guest gets this long to notice its interrupt before the thread is killed. */
const TERMINATE_GRACE_MS = 1_000;
/** A new worker first compiles the WASM module; the guest's own deadline starts only after that. */
const STARTUP_GRACE_MS = 10_000;

/** Globals that exist in Node or browsers but deliberately not here; using one is a policy violation. */
const HOST_APIS = new Set([
  "require",
  "process",
  "module",
  "exports",
  "Buffer",
  "global",
  "__dirname",
  "__filename",
  "fetch",
  "XMLHttpRequest",
  "WebSocket",
  "setTimeout",
  "setInterval",
  "setImmediate",
  "clearTimeout",
  "clearInterval",
  "queueMicrotask",
  "importScripts",
  "Deno",
  "Bun",
  "navigator",
  "window",
  "document",
]);

interface Job {
  id: number;
  code: string;
  input: string;
  limits: SandboxLimits;
  signal?: AbortSignal;
  resolve(reply: WorkerReply): void;
  reject(err: SandboxError): void;
}

type WorkerReply = GuestReply & { id: number };

const quickjsPath = createRequire(import.meta.url).resolve("quickjs-emscripten");

/**
 * A few long-lived workers, each running one guest at a time. A worker that overruns its deadline
 * is terminated and replaced; nothing else is shared between runs.
 */
class WorkerPool {
  private idle: Worker[] = [];
  private busy = 0;
  private queue: Job[] = [];
  private nextId = 1;
  private closed = false;
  constructor(private readonly size: number) {}

  run(code: string, input: string, limits: SandboxLimits, signal?: AbortSignal): Promise<WorkerReply> {
    return new Promise<WorkerReply>((resolve, reject) => {
      this.queue.push({ id: this.nextId++, code, input, limits, signal, resolve, reject });
      this.pump();
    });
  }

  /** Terminates idle workers; running jobs finish on theirs, which are then dropped. */
  async close(): Promise<void> {
    this.closed = true;
    const idle = this.idle.splice(0);
    await Promise.all(idle.map((w) => w.terminate()));
  }

  private spawn(): Worker {
    const w = new Worker(JS_WORKER_SOURCE, {
      eval: true,
      workerData: { quickjsPath },
      resourceLimits: { stackSizeMb: 4, maxOldGenerationSizeMb: 256 },
    });
    // Idle workers must not keep a CLI process alive.
    w.unref();
    return w;
  }

  private pump(): void {
    while (this.queue.length > 0 && (this.idle.length > 0 || this.busy < this.size)) {
      const job = this.queue.shift() as Job;
      if (job.signal?.aborted) {
        job.reject(aborted());
        continue;
      }
      const reused = this.idle.pop();
      this.busy++;
      this.dispatch(reused ?? this.spawn(), job, reused === undefined);
    }
  }

  private dispatch(worker: Worker, job: Job, fresh: boolean): void {
    const cancel = new SharedArrayBuffer(4);
    const flag = new Int32Array(cancel);
    let settled = false;
    const finish = (keepWorker: boolean) => {
      settled = true;
      clearTimeout(timer);
      job.signal?.removeEventListener("abort", onAbort);
      worker.off("message", onMessage);
      worker.off("error", onError);
      worker.off("exit", onExit);
      this.busy--;
      if (keepWorker && !this.closed) {
        worker.unref();
        this.idle.push(worker);
      } else {
        void worker.terminate();
      }
      this.pump();
    };
    const onMessage = (reply: WorkerReply) => {
      if (settled || reply.id !== job.id) return;
      finish(true);
      job.resolve(reply);
    };
    const onError = (err: Error) => {
      if (settled) return;
      finish(false);
      job.reject(
        new SandboxError("sandbox.crashed", `the JavaScript engine failed: ${clip(err.message, 300)}`, {
          language: "javascript",
        }),
      );
    };
    const onExit = () => onError(new Error("worker exited"));
    const onAbort = () => Atomics.store(flag, 0, 1);
    const timer = setTimeout(
      () => {
        if (settled) return;
        finish(false);
        job.reject(job.signal?.aborted ? aborted() : timeoutError(job.limits));
      },
      job.limits.timeoutMs + TERMINATE_GRACE_MS + (fresh ? STARTUP_GRACE_MS : 0),
    );
    job.signal?.addEventListener("abort", onAbort, { once: true });
    worker.on("message", onMessage);
    worker.on("error", onError);
    worker.on("exit", onExit);
    // A running job keeps the process alive until it settles.
    worker.ref();
    worker.postMessage({ id: job.id, code: job.code, input: job.input, limits: job.limits, cancel });
  }
}

let pool: WorkerPool | undefined;

function getPool(): WorkerPool {
  pool ??= new WorkerPool(Math.max(1, Math.min(4, availableParallelism())));
  return pool;
}

/**
 * For graceful server shutdown: stops the JavaScript worker threads. Idle workers never keep the
 * process alive, so CLIs need not call this; a later run starts new workers.
 */
export async function closeJavaScriptWorkers(): Promise<void> {
  const p = pool;
  pool = undefined;
  await p?.close();
}

export async function runJavaScript(
  code: string,
  inputs: Record<string, unknown>,
  limits: SandboxLimits,
  signal?: AbortSignal,
  inline = false,
): Promise<Record<string, unknown>> {
  const input = encodeInputs(inputs, "javascript");
  if (signal?.aborted) throw aborted();
  // Most guests finish within the inline slice on this thread; the rest start again from nothing in a worker.
  const reply =
    (inline ? await runInline(code, input, limits) : undefined) ?? (await getPool().run(code, input, limits, signal));
  if (reply.ok) {
    if (Buffer.byteLength(reply.text, "utf8") > limits.maxOutputBytes) throw tooLarge(reply.text.length, limits);
    return parseResult(reply.text, "javascript", limits.maxOutputBytes);
  }
  if ("fault" in reply) {
    if (reply.fault === "stack") {
      throw new SandboxError("sandbox.memory", "stack overflow: the code recursed too deeply", {
        language: "javascript",
        reason: "stack",
      });
    }
    throw new SandboxError("sandbox.crashed", `the JavaScript engine failed: ${reply.message}`, {
      language: "javascript",
    });
  }
  throw guestError(reply.error, code, signal, limits);
}

function timeoutError(limits: SandboxLimits): SandboxError {
  return new SandboxError("sandbox.timeout", `the code ran longer than ${limits.timeoutMs} ms`, {
    language: "javascript",
    timeoutMs: limits.timeoutMs,
  });
}

function aborted(): SandboxError {
  return new SandboxError("sandbox.aborted", "the run was cancelled", { language: "javascript" });
}

function tooLarge(size: number, limits: SandboxLimits): SandboxError {
  return new SandboxError(
    "sandbox.output_too_large",
    `the result is ${size} characters, over the limit of ${limits.maxOutputBytes} bytes`,
    { language: "javascript", limit: limits.maxOutputBytes },
  );
}

function lineOf(stack: string | undefined): number | undefined {
  const m = /code\.js:(\d+)/.exec(stack ?? "");
  return m?.[1] ? Number(m[1]) : undefined;
}

/** Turns what the guest threw into a typed error naming the reason. */
function guestError(
  e: DumpedError,
  code: string,
  signal: AbortSignal | undefined,
  limits: SandboxLimits,
): SandboxError {
  const name = e.name ?? "Error";
  const message = e.message ?? "";
  const language = "javascript" as const;
  const line = lineOf(e.stack);
  if (e.__weftKind === "no_main") return new SandboxError("sandbox.no_main", message, { language });
  if (e.__weftKind === "never_settles") return new SandboxError("sandbox.runtime_error", message, { language });
  if (e.__weftKind === "bad_result") return new SandboxError("sandbox.bad_result", message, { language });
  if (e.__weftKind === "output_too_large") {
    return new SandboxError("sandbox.output_too_large", message, { language, limit: limits.maxOutputBytes });
  }
  if (e.thrownNull && !/\b(throw|reject)\s*\(?\s*(null|undefined)\b/.test(code)) {
    return new SandboxError("sandbox.memory", `the code used more than ${limits.memoryBytes} bytes of memory`, {
      language,
      memoryBytes: limits.memoryBytes,
    });
  }
  if (name === "InternalError" && message === "interrupted") {
    return signal?.aborted ? aborted() : timeoutError(limits);
  }
  if (message === "out of memory" || (name === "InternalError" && /out of memory/.test(message))) {
    return new SandboxError("sandbox.memory", `the code used more than ${limits.memoryBytes} bytes of memory`, {
      language,
      memoryBytes: limits.memoryBytes,
    });
  }
  if (name === "InternalError" && message === "stack overflow") {
    return new SandboxError("sandbox.memory", "stack overflow: the code recursed too deeply", {
      language,
      reason: "stack",
      line,
    });
  }
  if (name === "ReferenceError") {
    const m = /^'([^']+)' is not defined$/.exec(message);
    if (m?.[1] && HOST_APIS.has(m[1])) {
      return new SandboxError(
        "sandbox.forbidden",
        `${m[1]} is not available: JavaScript code nodes run in an isolated engine without Node or browser APIs`,
        { language, line, api: m[1] },
      );
    }
    if (/^could not load module/.test(message)) {
      return new SandboxError("sandbox.forbidden", `modules cannot be loaded in the sandbox (${clip(message, 200)})`, {
        language,
        line,
      });
    }
  }
  if (name === "SyntaxError") {
    return new SandboxError(
      "sandbox.syntax_error",
      `SyntaxError: ${clip(message, 500)}${line ? ` (line ${line})` : ""}`,
      {
        language,
        line,
        errorType: name,
      },
    );
  }
  return new SandboxError("sandbox.runtime_error", `${name}: ${clip(message)}${line ? ` (line ${line})` : ""}`, {
    language,
    line,
    errorType: name,
  });
}
