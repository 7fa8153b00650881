import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

/**
 * WAL checkpoints of one SQLite file, run on a thread of their own over a second connection. A checkpoint under
 * synchronous=FULL copies the WAL's frames into the database file and syncs both; on the event loop that
 * stalled every request for its length (11 ms on average, up to 27 ms, measured at 64 clients on the /v1
 * bench, about twice a second). PASSIVE never blocks the writer: the main connection keeps appending to the
 * WAL meanwhile, and SQLite itself writes the WAL over from the start only once a checkpoint has synced the
 * database file, so durability is SQLite's own multi-connection WAL protocol, unchanged.
 */
const SOURCE = `
"use strict";
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driver);
const db = new Database(workerData.path, { fileMustExist: true });
db.pragma("busy_timeout = 5000");
db.pragma("synchronous = " + workerData.level);
parentPort.on("message", (m) => {
  if (m === "close") {
    db.close();
    parentPort.close();
    return;
  }
  let reply;
  try {
    db.pragma("wal_checkpoint(PASSIVE)");
    reply = { ok: true };
  } catch (e) {
    reply = { ok: false, message: String((e && e.message) || e) };
  }
  parentPort.postMessage(reply);
});
`;

export class Checkpointer {
  private worker: Worker | undefined;
  private closed = false;
  /** Checkpoints that failed (the WAL only grows until one succeeds; writes are unaffected). */
  failures = 0;

  constructor(
    private readonly path: string,
    /** The main connection's synchronous level: FULL (2) syncs the database file before the WAL is reused. */
    private readonly level: number,
  ) {}

  /** One PASSIVE checkpoint on the thread (started on first use); never rejects: a failure is counted. */
  run(): Promise<void> {
    if (this.closed) return Promise.resolve();
    const worker = this.start();
    return new Promise<void>((resolve) => {
      const finish = (ok: boolean) => {
        worker.off("message", replied);
        worker.off("error", ended);
        worker.off("exit", ended);
        if (!ok) this.failures++;
        worker.unref();
        resolve();
      };
      const replied = (reply: { ok: boolean }) => finish(reply.ok);
      const ended = () => {
        // The thread is gone (its connection could not open, or it crashed): the next checkpoint starts another.
        if (this.worker === worker) this.worker = undefined;
        finish(false);
      };
      worker.on("message", replied);
      worker.on("error", ended);
      worker.on("exit", ended);
      // Held while a checkpoint runs, so a process ending its last writes still waits for it.
      worker.ref();
      worker.postMessage("checkpoint");
    });
  }

  /**
   * Start the thread ahead of its first checkpoint (the group commit calls this at half the mark): starting it
   * takes tens of milliseconds, which the groups held for that first checkpoint would otherwise wait.
   */
  prepare(): void {
    if (!this.closed) this.start();
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const driver = createRequire(import.meta.url).resolve("better-sqlite3");
    this.worker = new Worker(SOURCE, { eval: true, workerData: { driver, path: this.path, level: this.level } });
    // An idle checkpointer never keeps the process alive.
    this.worker.unref();
    return this.worker;
  }

  /** Close the thread's connection (call once no checkpoint is under way). */
  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    this.worker = undefined;
    if (!worker) return;
    await new Promise<void>((resolve) => {
      worker.once("exit", () => resolve());
      // Held until it exits: an idle thread is unref'd, and a process with nothing else to do would otherwise
      // end inside this close, before the caller's next line.
      worker.ref();
      worker.postMessage("close");
    });
  }
}
