/**
 * The QuickJS guest runner as source text: a function expression taking (quickjs-emscripten, node:v8) and
 * returning { module(limitBytes), run(module, job), drop() }. Both places that run guests evaluate this one text:
 * the worker thread (js-worker-source.ts) and the main thread's inline attempt (inline-javascript.ts). Each
 * evaluation keeps its own WASM module; `run` is synchronous from the runtime's creation to its disposal, so the
 * caller alone bounds it (a worker's termination, or the main thread's vm timeout).
 *
 * Job: {code, input, limits, cancel, maxPolls?}. Reply: {ok: true, text} (the JSON result) or {ok: false, error} (what the
 * guest threw, dumped) or {ok: false, fault} (the engine itself failed; the WASM module is then rebuilt).
 */
/** What the guest threw, as QuickJS dumps it (plus the driver's `__weftKind` for its own refusals). */
export interface DumpedError {
  name?: string;
  message?: string;
  stack?: string;
  __weftKind?: string;
  thrownNull?: boolean;
}

export type GuestReply =
  | { ok: true; text: string }
  | { ok: false; error: DumpedError }
  | { ok: false; fault: "stack" | "crash"; message: string };

export const QUICKJS_GUEST_FACTORY = String.raw`(function makeQuickJSGuest(qjs, v8) {
"use strict";
// V8 re-compiles a WebAssembly function with its optimising compiler once it has run about --wasm-tiering-budget
// bytes of code (default 1.8 M). QuickJS's functions cross that within one small guest, so every process that ran
// one code node paid for optimised code it never used: 30-60 ms of CPU at the default, and still ~25 ms (on V8's
// background threads) at 18 M, as QuickJS's runtime and context set-up alone crossed it. At 180 M a small guest
// stays in the baseline tier (5-8 ms of background compiling in all); a guest that runs for half a second or more
// (fib(31)) still gets optimised and runs faster than it would without (issue 33's measurements). Set here, before
// the first QuickJS module is compiled, not on node's command line: a non-default flag there makes node compile
// its own start-up code without its cache.
v8.setFlagsFromString("--wasm-tiering-budget=180000000");

// One WASM module per worker, reused; each run gets its own runtime (heap) and context (globals).
// QuickJS's memory limit does not count every allocation (typed-array storage escapes it), so the
// WASM memory itself is capped too: a guest can never make this thread hold more than the cap.
const PAGE = 65536;
const BASE_BYTES = 16 * 1024 * 1024;
// A module whose memory grew past this is dropped after the run, so the pages are given back.
const RETAIN_BYTES = 96 * 1024 * 1024;
let modulePromise = null;
let memory = null;
let capBytes = 0;
const capFor = (limitBytes) => Math.min(2048 * 1024 * 1024 - PAGE, BASE_BYTES + 2 * limitBytes);
function getModule(limitBytes) {
  if (modulePromise && capFor(limitBytes) > capBytes) modulePromise = null;
  if (!modulePromise) {
    capBytes = capFor(limitBytes);
    memory = new WebAssembly.Memory({ initial: BASE_BYTES / PAGE, maximum: Math.floor(capBytes / PAGE) });
    modulePromise = qjs.newQuickJSWASMModuleFromVariant(qjs.newVariant(qjs.RELEASE_SYNC, { wasmMemory: memory }));
  }
  return modulePromise;
}

// QuickJS's own stack check must fire before V8's: its C frames live on this thread's stack.
const MAX_STACK_BYTES = 256 * 1024;

const PRELUDE = "globalThis.console = (function () { var noop = function () {};" +
  " return { log: noop, info: noop, warn: noop, error: noop, debug: noop, trace: noop, dir: noop, table: noop }; })();";

const DRIVER = [
  ";(function () {",
  '  "use strict";',
  "  var kind = function (k, m) { var e = new Error(m); e.__weftKind = k; return e; };",
  '  if (typeof main !== "function") throw kind("no_main", "the code does not define a function main(inputs)");',
  "  var inputs = JSON.parse(globalThis.__weft_in);",
  "  delete globalThis.__weft_in;",
  "  var limit = globalThis.__weft_max;",
  "  delete globalThis.__weft_max;",
  "  var finish = function (r) {",
  '    if (r === null || typeof r !== "object" || Array.isArray(r)) {',
  '      throw kind("bad_result", "main must return an object, got " + (r === null ? "null" : Array.isArray(r) ? "an array" : typeof r));',
  "    }",
  "    var s = JSON.stringify(r);",
  '    if (typeof s !== "string") throw kind("bad_result", "the result cannot be serialised as JSON");',
  '    if (s.length > limit) throw kind("output_too_large", "the result is " + s.length + " characters, over the limit of " + limit);',
  "    return s;",
  "  };",
  "  var r = main(inputs);",
  // Synchronous results are finished synchronously: QuickJS leaks objects when a promise reaction
  // throws after a large allocation, and a leaked runtime cannot be freed.
  '  if (r !== null && typeof r === "object" && typeof r.then === "function") return Promise.resolve(r).then(finish);',
  "  return finish(r);",
  "})()",
].join("\n");

function dump(ctx, h) {
  try {
    const d = ctx.dump(h);
    // QuickJS throws a bare null when it cannot even allocate the out-of-memory error.
    if (d === null || d === undefined) return { thrownNull: true, message: String(d) };
    return typeof d === "object" ? d : { message: String(d) };
  } catch (e) {
    return { message: "unknown error" };
  }
}

function compact(e) {
  const out = { name: e.name, message: typeof e.message === "string" ? e.message.slice(0, 4000) : undefined,
    stack: typeof e.stack === "string" ? e.stack.slice(0, 2000) : undefined, __weftKind: e.__weftKind,
    thrownNull: e.thrownNull === true };
  return out;
}

// One guest on a loaded module, start to end, synchronously: the caller decides which thread and what bounds it.
function runOn(mod, msg) {
  const cancel = new Int32Array(msg.cancel);
  const deadline = Date.now() + msg.limits.timeoutMs;
  let rt, ctx;
  const handles = [];
  const keep = (h) => { handles.push(h); return h; };
  let poisoned = false;
  try {
    rt = mod.newRuntime();
    rt.setMemoryLimit(msg.limits.memoryBytes);
    rt.setMaxStackSize(MAX_STACK_BYTES);
    // maxPolls (the main thread's slice): QuickJS polls every 10,000 jumps and calls, so a count of polls bounds
    // the guest's own work whatever the machine's load.
    let polls = 0;
    const maxPolls = msg.maxPolls === undefined ? Infinity : msg.maxPolls;
    rt.setInterruptHandler(() => ++polls > maxPolls || Date.now() > deadline || Atomics.load(cancel, 0) !== 0);
    ctx = rt.newContext();
    const pre = ctx.evalCode(PRELUDE, "prelude.js");
    keep(pre.error || pre.value);
    ctx.setProp(ctx.global, "__weft_in", keep(ctx.newString(msg.input)));
    ctx.setProp(ctx.global, "__weft_max", keep(ctx.newNumber(msg.limits.maxOutputBytes)));
    const ev = ctx.evalCode(msg.code + "\n" + DRIVER, "code.js");
    if (ev.error) return { ok: false, error: compact(dump(ctx, keep(ev.error))) };
    const promise = keep(ev.value);
    for (;;) {
      const st = ctx.getPromiseState(promise);
      if (st.type === "fulfilled") {
        if (!st.notAPromise) keep(st.value);
        return { ok: true, text: ctx.getString(st.value) };
      }
      if (st.type === "rejected") return { ok: false, error: compact(dump(ctx, keep(st.error))) };
      const jobs = rt.executePendingJobs();
      if (jobs.error) return { ok: false, error: compact(dump(ctx, keep(jobs.error))) };
      if (jobs.value === 0 && ctx.getPromiseState(promise).type === "pending") {
        return { ok: false, error: { name: "Error", __weftKind: "never_settles",
          message: "main returned a promise that never settles (timers and I/O do not exist in the sandbox)" } };
      }
    }
  } catch (e) {
    // A fault outside QuickJS's checks (V8 stack overflow, WASM abort): the module is suspect.
    poisoned = true;
    modulePromise = null;
    return { ok: false, fault: e instanceof RangeError ? "stack" : "crash", message: String(e).slice(0, 300) };
  } finally {
    if (!poisoned) {
      try {
        for (const h of handles) if (h.alive) h.dispose();
        if (ctx) ctx.dispose();
        if (rt) rt.dispose();
      } catch (e) {
        modulePromise = null;
      }
    }
    if (memory && memory.buffer.byteLength > RETAIN_BYTES) modulePromise = null;
  }
}

return { module: getModule, run: runOn, drop: function () { modulePromise = null; } };
})`;
