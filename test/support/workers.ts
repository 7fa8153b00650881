// `weft worker` processes for queue tests and benchmarks, each in a working directory of its own unless told
// otherwise, with no weft.config.json (default services), their stderr kept for the test to read.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { WEFT_BIN } from "./weft-bin.js";

export interface WorkerProcess {
  name: string;
  p: ChildProcess;
  cwd: string;
  /** Resolves on the worker's "ready" line; rejects if it exits first. */
  ready: Promise<void>;
  /** Resolves with the exit code (or signal) when the process ends. */
  exited: Promise<number | NodeJS.Signals | null>;
  log(): string;
}

export function spawnWorker(o: {
  name: string;
  redisUrl: string;
  db: string;
  cwd?: string;
  concurrency?: number;
  lockMs?: number;
  args?: string[];
  /** Added to (or overriding) the inherited environment. */
  env?: Record<string, string>;
  /** Another checkout's bin/weft (benchmarks against a baseline); default this checkout's. */
  bin?: string;
}): WorkerProcess {
  const cwd = o.cwd ?? mkdtempSync(join(tmpdir(), `weft-worker-${o.name}-`));
  const args = ["worker", "--redis", o.redisUrl, "--db", o.db, "--name", o.name];
  args.push("--concurrency", String(o.concurrency ?? 8), "--lock-ms", String(o.lockMs ?? 6000), ...(o.args ?? []));
  // bin/weft execs node, so the pid is the worker's own: a kill -9 of it kills the worker.
  const p = spawn(o.bin ?? WEFT_BIN, args, {
    stdio: ["ignore", "ignore", "pipe"],
    cwd,
    env: { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== "WEFT_CONFIG")), ...o.env },
  });
  let log = "";
  p.stderr!.on("data", (d) => {
    log += d;
  });
  const exited = new Promise<number | NodeJS.Signals | null>((res) => p.once("exit", (code, sig) => res(code ?? sig)));
  const ready = new Promise<void>((res, rej) => {
    const t = setInterval(() => {
      if (log.includes(`worker ${o.name} ready`)) {
        clearInterval(t);
        res();
      } else if (p.exitCode !== null || p.signalCode !== null) {
        clearInterval(t);
        rej(new Error(`worker ${o.name} exited: ${log}`));
      }
    }, 50);
  });
  // A test that stops a worker before it was ready never awaits this: its exit is then no unhandled rejection.
  ready.catch(() => {});
  return { name: o.name, p, cwd, ready, exited, log: () => log };
}

export async function waitFor(cond: () => boolean | Promise<boolean>, ms: number, what: string): Promise<void> {
  const t0 = Date.now();
  while (!(await cond())) {
    if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
