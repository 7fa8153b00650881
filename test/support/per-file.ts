/**
 * Fixtures a test file sets up once: each registers its own vitest hooks, so the file names the fixture at module
 * level and never repeats the start/stop lines. (Not in replay-server.ts or v1-apps.ts: the benchmarks import
 * those outside vitest.)
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach } from "vitest";
import { type ReplayServer, startReplayServer } from "./replay-server.js";
import type { V1Server } from "./v1-apps.js";

/** A fresh directory under the system's temp folder, named `weft-<what>-…`, removed after all the file's tests. */
export function tempDir(what: string): string {
  const dir = mkdtempSync(join(tmpdir(), `weft-${what}-`));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * A stand-in for what `start` makes in beforeAll: its properties reach the real one (methods bound to it), so
 * a file can hold it in a module-level const; used before beforeAll has run, it throws.
 */
function startedInBeforeAll<T extends object>(what: string, current: () => T | undefined): T {
  return new Proxy({} as T, {
    get(_target, prop) {
      const real = current();
      if (!real) throw new Error(`${what} starts in beforeAll: use it in a hook or a test`);
      const value = Reflect.get(real, prop, real);
      return typeof value === "function" ? value.bind(real) : value;
    },
  });
}

/** One scripted LLM server for the file, its script and recorded requests cleared before each test. */
export function replayServerPerFile(): ReplayServer {
  let server: ReplayServer | undefined;
  beforeAll(async () => {
    server = await startReplayServer();
  });
  afterAll(async () => {
    await server?.close();
  });
  beforeEach(() => server?.reset());
  return startedInBeforeAll("the replay server", () => server);
}

/** One service-API server (`startV1Server`) for the file; loaded when started, so a file of CLI tests stays light. */
export function v1ServerPerFile(): V1Server {
  let server: V1Server | undefined;
  beforeAll(async () => {
    const { startV1Server } = await import("./v1-apps.js");
    server = await startV1Server();
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });
  return startedInBeforeAll("the /v1 server", () => server);
}
