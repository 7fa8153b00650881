/**
 * Source of a template-render thread: plain CommonJS run with `new Worker(src, { eval: true })`.
 * It imports the built renderer (dist/jinja/bounded.js, what `weft` runs) or, when the host runs from
 * TypeScript source (vitest, tsx), loads bounded.ts through tsx's CommonJS API. Replies carry the error's code and message only; the
 * host rebuilds the typed error.
 */
export const JINJA_WORKER_SOURCE = `
"use strict";
const { parentPort, workerData } = require("node:worker_threads");
const loaded = workerData.tsxApi
  ? Promise.resolve(require(workerData.tsxApi).require(workerData.module, workerData.module))
  : import(require("node:url").pathToFileURL(workerData.module).href);
loaded.then(({ renderBounded }) => {
parentPort.on("message", ({ id, job }) => {
  let reply;
  try {
    reply = { ok: true, text: renderBounded(job.source, job.vars, job.budget) };
  } catch (e) {
    const code = e && typeof e.code === "string" && e.code.startsWith("jinja.") ? e.code : "jinja.render";
    reply = { ok: false, code, message: String((e && e.message) || e), details: (e && e.details) || {} };
  }
  parentPort.postMessage({ id, reply });
});
parentPort.postMessage({ ready: true });
});
`;
