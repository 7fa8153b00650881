import { defineConfig } from "vitest/config";

// The files that start a Weft server in the test process (and drive it from a browser or a client) get a
// fresh module registry each; the rest share their worker's modules from one file to the next.
const SERVER_FILES = ["test/server/**/*.test.ts"];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Most of a file's time is waiting (for a server, a subprocess, a browser, PostgreSQL), so on a 2-core machine
    // three files at once finish sooner than one; a test that then fails has a timing defect to fix.
    maxWorkers: 3,
    setupFiles: ["test/support/env-per-file.ts"],
    // expect.poll waits for a state; its 1 s default is shorter than a busy 2-core CI machine takes to get there.
    expect: { poll: { timeout: 15_000 } },
    globalSetup: ["test/support/global-setup.ts"],
    projects: [
      {
        extends: true,
        test: {
          name: "shared",
          include: ["test/**/*.test.ts", "web/test/**/*.test.ts"],
          exclude: SERVER_FILES,
          // Loading the modules again for each of 200-odd files was a fifth of the suite's time. What a file
          // changes in the process it shares (process.env) is put back by env-per-file.ts; module state the tests
          // rely on is reset by the modules' own close functions.
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: "servers",
          include: SERVER_FILES,
          // An in-process server holds the module state of everything it serves (pools, caches, the catalogue):
          // after another file's in-process server, a browser test of the studio timed out run after run.
          isolate: true,
        },
      },
    ],
  },
});
