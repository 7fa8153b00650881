import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { openStores } from "../../src/store/open.js";

const root = resolve(import.meta.dirname, "../..");
const child = join(root, "test/support/resume-child.ts");
const tsx = `file://${join(root, "node_modules/tsx/dist/esm/index.mjs")}`;

function start(args: string[]) {
  const p = spawn(process.execPath, ["--import", tsx, child, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  p.stdout.on("data", (d) => (out += d));
  p.stderr.on("data", (d) => (err += d));
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string; err: string }>((res) =>
    p.on("exit", (code, signal) => res({ code, signal, out, err })),
  );
  return { p, done };
}

describe("durable runs", () => {
  it("resumes after kill -9 without re-running committed nodes", async () => {
    const dir = mkdtempSync(join(tmpdir(), "weft-resume-"));
    const db = join(dir, "runs.db");
    const log = join(dir, "exec.log");
    const runId = "run-kill-test";
    const first = start(["run", db, log, runId]);
    // Wait until a few steps have executed, then kill the process hard.
    await new Promise<void>((res, rej) => {
      const t0 = Date.now();
      const poll = setInterval(() => {
        const n = existsSync(log) ? readFileSync(log, "utf8").trim().split("\n").length : 0;
        if (n >= 5) {
          clearInterval(poll);
          res();
        } else if (Date.now() - t0 > 20_000) {
          clearInterval(poll);
          rej(new Error("child made no progress"));
        }
      }, 20);
    });
    first.p.kill("SIGKILL");
    const killed = await first.done;
    expect(killed.signal).toBe("SIGKILL");

    const stores = await openStores(db);
    const committedBefore = [...(await stores.runs.committed(runId)).keys()];
    expect((await stores.runs.getRun(runId))?.status).toBe("running");
    await stores.close();
    expect(committedBefore.length).toBeGreaterThanOrEqual(4);

    const second = start(["resume", db, log, runId]);
    const res = await second.done;
    expect(res.code, res.err).toBe(0);
    const result = JSON.parse(res.out);
    expect(result.status).toBe("succeeded");
    // 1 + 2 + ... + 12, the same as an uninterrupted run
    expect(result.outputs).toEqual({ total: 78 });

    const executed = readFileSync(log, "utf8").trim().split("\n");
    const counts = new Map<string, number>();
    for (const id of executed) counts.set(id, (counts.get(id) ?? 0) + 1);
    // Every committed node ran exactly once; only the node in flight at the kill may have run twice.
    for (const key of committedBefore.filter((k) => /^s\d+$/.test(k))) expect(counts.get(key)).toBe(1);
    const twice = [...counts.entries()].filter(([, c]) => c > 1);
    expect(twice.length).toBeLessThanOrEqual(1);
    expect(new Set(executed).size).toBe(12);
  }, 60_000);
});
