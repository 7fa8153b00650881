/**
 * Source of an extraction thread: plain CommonJS run with `new Worker(src, { eval: true })`. It
 * imports the built extractors (dist/tools/extract/run.js, what `weft` runs) or, when the host runs
 * from TypeScript source with no fresh build (see bounded.ts), loads run.ts through tsx's ESM API. Replies carry the
 * error's code, message and details only; the host rebuilds the typed error.
 */
export const EXTRACT_WORKER_SOURCE = `
"use strict";
const { parentPort, workerData } = require("node:worker_threads");
const { pathToFileURL } = require("node:url");
const url = pathToFileURL(workerData.module).href;
const loaded = workerData.tsxApi
  ? import(pathToFileURL(workerData.tsxApi).href).then((api) => api.tsImport(url, url))
  : import(url);
loaded
  .then(async (mod) => {
    await mod.preload();
    parentPort.on("message", async ({ id, job }) => {
      parentPort.postMessage({ id, reply: await mod.runExtraction(job) });
    });
    parentPort.postMessage({ ready: true });
  });
`;
