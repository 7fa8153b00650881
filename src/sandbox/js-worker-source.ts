import { QUICKJS_GUEST_FACTORY } from "./quickjs-guest-source.js";

/**
 * Source of the worker thread that hosts QuickJS. It is plain CommonJS held in a string (run with
 * `new Worker(src, { eval: true })`) so it loads the same way under tsx, vitest and compiled output.
 *
 * Why a worker: QuickJS polls its interrupt handler only between bytecodes, so one long C builtin
 * (`new Array(1e7).fill(0)`, a huge `repeat`) can overrun the deadline; in a worker the host can
 * still terminate it, and the host event loop never blocks on guest code.
 *
 * Protocol: the host posts {id, code, input, limits, cancel}; the worker answers with the guest runner's reply
 * (quickjs-guest-source.ts) and the job's id.
 */
export const JS_WORKER_SOURCE = `
"use strict";
const { parentPort, workerData } = require("node:worker_threads");
const guest = ${QUICKJS_GUEST_FACTORY}(require(workerData.quickjsPath), require("node:v8"));

parentPort.on("message", (msg) => {
  guest.module(msg.limits.memoryBytes).then((mod) => guest.run(mod, msg)).then(
    (res) => parentPort.postMessage(Object.assign({ id: msg.id }, res)),
    (e) => parentPort.postMessage({ id: msg.id, ok: false, fault: "crash", message: String(e).slice(0, 300) }),
  );
});
`;
