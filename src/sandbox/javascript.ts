import {
  newQuickJSWASMModule,
  type QuickJSContext,
  type QuickJSHandle,
  type QuickJSRuntime,
  type QuickJSWASMModule,
} from "quickjs-emscripten";
import type { SandboxLimits } from "../ir/services.js";
import { clip, SandboxError } from "./errors.js";
import { encodeInputs, parseResult } from "./json.js";

/**
 * JavaScript code nodes run in QuickJS compiled to WebAssembly. The guest sees only ECMAScript
 * built-ins: no require, process, fetch, timers or host objects exist in its global scope, and
 * values cross the boundary as JSON strings only, so no host object is ever reachable from inside.
 */

const FILENAME = "code.js";
/**
 * QuickJS's own stack check must fire before V8's: the interpreter's C frames live on the host
 * stack, and a V8 RangeError thrown from inside WASM leaves the QuickJS heap half-unwound.
 */
const MAX_STACK_BYTES = 256 * 1024;

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

let modulePromise: Promise<QuickJSWASMModule> | undefined;

/** One WASM module per process; each run gets a fresh runtime (heap) and context (globals). */
function getModule(): Promise<QuickJSWASMModule> {
  modulePromise ??= newQuickJSWASMModule();
  return modulePromise;
}

/** After a host-level fault inside WASM the module's memory may be inconsistent: start over. */
function discardModule(): void {
  modulePromise = undefined;
}

/** Debug printing is common in pasted code; it is accepted and discarded rather than failing the run. */
const PRELUDE = `globalThis.console = (function () {
  var noop = function () {};
  return { log: noop, info: noop, warn: noop, error: noop, debug: noop, trace: noop, dir: noop, table: noop };
})();`;

const DRIVER = `
;(function () {
  "use strict";
  var kind = function (k, m) { var e = new Error(m); e.__weftKind = k; return e; };
  if (typeof main !== "function") throw kind("no_main", "the code does not define a function main(inputs)");
  var inputs = JSON.parse(globalThis.__weft_in);
  delete globalThis.__weft_in;
  var limit = globalThis.__weft_max;
  delete globalThis.__weft_max;
  return Promise.resolve(main(inputs)).then(function (r) {
    if (r === null || typeof r !== "object" || Array.isArray(r)) {
      throw kind("bad_result", "main must return an object, got " + (r === null ? "null" : Array.isArray(r) ? "an array" : typeof r));
    }
    var s = JSON.stringify(r);
    if (typeof s !== "string") throw kind("bad_result", "the result cannot be serialised as JSON");
    if (s.length > limit) throw kind("output_too_large", "the result is " + s.length + " characters, over the limit of " + limit);
    return s;
  });
})()
`;

export async function runJavaScript(
  code: string,
  inputs: Record<string, unknown>,
  limits: SandboxLimits,
  signal?: AbortSignal,
): Promise<Record<string, unknown>> {
  const inputText = encodeInputs(inputs, "javascript");
  if (signal?.aborted) throw aborted();
  const mod = await getModule();
  const deadline = Date.now() + limits.timeoutMs;
  let poisoned = false;
  let rt: QuickJSRuntime | undefined;
  let ctx: QuickJSContext | undefined;
  const handles: QuickJSHandle[] = [];
  try {
    rt = mod.newRuntime();
    rt.setMemoryLimit(limits.memoryBytes);
    rt.setMaxStackSize(MAX_STACK_BYTES);
    rt.setInterruptHandler(() => Date.now() > deadline || signal?.aborted === true);
    ctx = rt.newContext();
    const c = ctx;
    const keep = (h: QuickJSHandle) => {
      handles.push(h);
      return h;
    };
    const prelude = c.evalCode(PRELUDE, "prelude.js");
    keep(prelude.error ?? prelude.value);
    c.setProp(c.global, "__weft_in", keep(c.newString(inputText)));
    c.setProp(c.global, "__weft_max", keep(c.newNumber(limits.maxOutputBytes)));

    const evaluated = c.evalCode(`${code}\n${DRIVER}`, FILENAME);
    if (evaluated.error) throw guestError(c, keep(evaluated.error), signal, limits);
    const promise = keep(evaluated.value);

    // Settle the promise: async main() is allowed, but only microtasks exist (no timers, no I/O).
    for (;;) {
      const state = c.getPromiseState(promise);
      if (state.type === "fulfilled") {
        if (!state.notAPromise) keep(state.value);
        const text = c.getString(state.value);
        if (Buffer.byteLength(text, "utf8") > limits.maxOutputBytes) throw tooLarge(text.length, limits);
        return parseResult(text, "javascript");
      }
      if (state.type === "rejected") throw guestError(c, keep(state.error), signal, limits);
      const jobs = rt.executePendingJobs();
      if (jobs.error) throw guestError(c, keep(jobs.error), signal, limits);
      if (jobs.value === 0 && c.getPromiseState(promise).type === "pending") {
        throw new SandboxError(
          "sandbox.runtime_error",
          "main returned a promise that never settles (timers and I/O do not exist in the sandbox)",
          { language: "javascript" },
        );
      }
    }
  } catch (e) {
    if (e instanceof SandboxError) throw e;
    // A fault outside QuickJS's own checks (V8 stack overflow, WASM abort): the module is suspect.
    poisoned = true;
    discardModule();
    if (e instanceof RangeError) {
      throw new SandboxError("sandbox.memory", "stack overflow: the code recursed too deeply", {
        language: "javascript",
        reason: "stack",
      });
    }
    throw new SandboxError("sandbox.crashed", `the JavaScript engine failed: ${clip(String(e), 300)}`, {
      language: "javascript",
    });
  } finally {
    if (!poisoned) {
      try {
        for (const h of handles) if (h.alive) h.dispose();
        ctx?.dispose();
        rt?.dispose();
      } catch {
        // A runtime that cannot be freed cleanly must not be reused by later runs.
        discardModule();
      }
    }
  }
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

interface DumpedError {
  name?: string;
  message?: string;
  stack?: string;
  __weftKind?: string;
}

function dumpError(ctx: QuickJSContext, h: QuickJSHandle): DumpedError {
  try {
    const d = ctx.dump(h) as unknown;
    if (d && typeof d === "object") return d as DumpedError;
    return { message: String(d) };
  } catch {
    return { message: "unknown error" };
  }
}

function lineOf(stack: string | undefined): number | undefined {
  const m = /code\.js:(\d+)/.exec(stack ?? "");
  return m?.[1] ? Number(m[1]) : undefined;
}

/** Turns what the guest threw into a typed error naming the reason. */
function guestError(
  ctx: QuickJSContext,
  h: QuickJSHandle,
  signal: AbortSignal | undefined,
  limits: SandboxLimits,
): SandboxError {
  const e = dumpError(ctx, h);
  const name = e.name ?? "Error";
  const message = e.message ?? "";
  const language = "javascript" as const;
  const line = lineOf(e.stack);
  if (e.__weftKind === "no_main") return new SandboxError("sandbox.no_main", message, { language });
  if (e.__weftKind === "bad_result") return new SandboxError("sandbox.bad_result", message, { language });
  if (e.__weftKind === "output_too_large") {
    return new SandboxError("sandbox.output_too_large", message, { language, limit: limits.maxOutputBytes });
  }
  if (name === "InternalError" && message === "interrupted") {
    if (signal?.aborted) return aborted();
    return new SandboxError("sandbox.timeout", `the code ran longer than ${limits.timeoutMs} ms`, {
      language,
      timeoutMs: limits.timeoutMs,
    });
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
    return new SandboxError("sandbox.syntax_error", `SyntaxError: ${clip(message, 500)}${line ? ` (line ${line})` : ""}`, {
      language,
      line,
      errorType: name,
    });
  }
  return new SandboxError("sandbox.runtime_error", `${name}: ${clip(message)}${line ? ` (line ${line})` : ""}`, {
    language,
    line,
    errorType: name,
  });
}
