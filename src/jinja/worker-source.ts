/**
 * Source of a template-render thread: plain CommonJS run with `new Worker(src, { eval: true })`,
 * which loads the TypeScript renderer through tsx's CommonJS API so it works the same under the
 * `weft` CLI, vitest and any other host. Replies carry the error's code and message only; the
 * host rebuilds the typed error.
 */
export const JINJA_WORKER_SOURCE = `
"use strict";
const { parentPort, workerData } = require("node:worker_threads");
const { require: tsRequire } = require(workerData.tsxApi);
const { renderBounded } = tsRequire(workerData.module, workerData.module);
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
`;
