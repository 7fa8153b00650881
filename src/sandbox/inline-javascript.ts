import { createRequire } from "node:module";
import v8 from "node:v8";
import vm from "node:vm";
import type { SandboxLimits } from "../ir/services.js";
import { type GuestReply, QUICKJS_GUEST_FACTORY } from "./quickjs-guest-source.js";

/**
 * The first attempt at a JavaScript code node, on the calling thread. Nearly every guest finishes in well under a
 * millisecond, while a worker thread costs tens of milliseconds of CPU to start (a node environment, its module
 * loader, its own QuickJS module) and a message round trip per run. So a guest first gets a short slice here: the
 * same QuickJS runner the workers use, with the same memory, stack and output limits, interrupted at the end of
 * the slice (QuickJS's interrupt handler), and a hard stop from node's vm timeout, which terminates execution even
 * inside one long WASM builtin (`new Array(2 ** 32 - 1).join()`); the module is then dropped.
 *
 * A guest that needs more than the slice, or whose end this thread cannot decide (V8's own stack, a failed
 * engine), starts again from nothing in a worker under its full limits (javascript.ts), and its attempt here is
 * never seen: guests have no I/O, timers or shared state, so running one twice has no effect the first run had.
 * A code text that once needed the worker goes there directly afterwards, so a heavy code node inside an iteration
 * does not pay the slice on every item. Only one-shot commands run guests here (createSandbox's inlineJavaScript);
 * a server's thread is shared by every run it serves.
 *
 * The slice, in QuickJS's interrupt polls (one per 10,000 jumps and calls): a count, not a clock, so a loaded
 * machine does not send a guest to a worker that an idle one would have finished here. 25 polls are 10-30 ms of
 * a tight loop, more for guests that allocate.
 */
const SLICE_POLLS = 25;
/** A clock as well, for guests that poll seldom (long builtins, or a machine so loaded the slice's time balloons). */
const SLICE_MS = 100;
/** The hard stop: QuickJS polls only between bytecodes, so one builtin may run past the clock. */
const HARD_STOP_MS = 2 * SLICE_MS;
/** Larger code or inputs take a worker at once: parsing them alone may not fit the slice. */
const MAX_INLINE_CHARS = 256 * 1024;
/** How many code texts that needed a worker are remembered (then the list starts over). */
const REMEMBERED = 256;
/**
 * Run once on each new module, outside any guest's slice: V8 compiles QuickJS's functions on their first call, and
 * that one-time cost must not count against the first guest. It touches what most guests do.
 */
const WARM_UP = `function main(i) {
  try { JSON.parse("{"); } catch (e) { String(e.stack); }
  const w = String(i.t).split(/\\s+/).filter(Boolean).map((x) => x.toUpperCase());
  return { n: w.length, j: JSON.parse(JSON.stringify({ w, d: [1.5, null, true] })), k: Object.keys(i) };
}`;

type Job = { code: string; input: string; limits: SandboxLimits; cancel: SharedArrayBuffer; maxPolls?: number };
type Guest = {
  module(limitBytes: number): Promise<unknown>;
  run(mod: unknown, job: Job): GuestReply;
  drop(): void;
};

let guest: Guest | undefined;
/** The module the warm-up last ran on. */
let warmed: unknown;
const needsWorker = new Set<string>();
const HOOK = Symbol.for("weft.sandbox.inlineGuest");
// Compiled once; node's vm timeout applies only to a script's run, so the guest is entered through this one.
let call: vm.Script | undefined;
/** A cancel flag nobody raises: an abort cannot arrive while this thread is busy in the guest. */
const NEVER = new SharedArrayBuffer(4);

function load(): Guest {
  if (!guest) {
    const qjs = createRequire(import.meta.url)("quickjs-emscripten");
    guest = new Function(`return ${QUICKJS_GUEST_FACTORY}`)()(qjs, v8) as Guest;
  }
  return guest;
}

/** The guest's reply when this thread decided it; undefined when a worker must run it. */
export async function runInline(code: string, input: string, limits: SandboxLimits): Promise<GuestReply | undefined> {
  if (code.length + input.length > MAX_INLINE_CHARS || needsWorker.has(code)) return undefined;
  const g = load();
  const mod = await g.module(limits.memoryBytes);
  if (mod !== warmed) {
    warmed = mod;
    enter(g, () => g.run(mod, { code: WARM_UP, input: '{"t":"a b"}', limits, cancel: NEVER }));
  }
  const sliced = { ...limits, timeoutMs: Math.min(SLICE_MS, limits.timeoutMs) };
  const reply = enter(g, () => g.run(mod, { code, input, limits: sliced, cancel: NEVER, maxPolls: SLICE_POLLS }));
  if (reply && decided(reply)) return reply;
  if (needsWorker.size >= REMEMBERED) needsWorker.clear();
  needsWorker.add(code);
  return undefined;
}

/** Runs `fn` under the hard stop; undefined when it was stopped (the module is then dropped: its state is torn). */
function enter(g: Guest, fn: () => GuestReply): GuestReply | undefined {
  call ??= new vm.Script(`globalThis[Symbol.for(${JSON.stringify(HOOK.description)})]()`, {
    filename: "weft-inline-guest",
  });
  const host = globalThis as Record<symbol, unknown>;
  host[HOOK] = fn;
  try {
    return call.runInThisContext({ timeout: HARD_STOP_MS }) as GuestReply;
  } catch {
    // The vm timeout's termination (or anything else thrown past the runner's own catch): nothing is known.
    g.drop();
    return undefined;
  } finally {
    delete host[HOOK];
  }
}

/** Whether a reply from the slice is the guest's own end, the one a worker would reach too. */
function decided(reply: GuestReply): boolean {
  if (reply.ok) return true;
  if ("fault" in reply) return false;
  // Interrupted: by the slice (or by a deadline of the guest's own within it); the worker decides which.
  return !(reply.error.name === "InternalError" && reply.error.message === "interrupted");
}
