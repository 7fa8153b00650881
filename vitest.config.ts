import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts", "web/test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Most of a file's time is waiting (for a server, a subprocess, a browser, PostgreSQL), so on a 2-core machine
    // three files at once finish sooner than one; a test that then fails has a timing defect to fix.
    maxWorkers: 3,
    // A worker keeps the modules it has loaded from one file to the next: loading them again for each of 255
    // files was a fifth of the suite's time. What a file changes in the process it shares (process.env) is put
    // back by env-per-file.ts; module state the tests rely on is reset by the modules' own close functions.
    isolate: false,
    setupFiles: ["test/support/env-per-file.ts"],
    // expect.poll waits for a state; its 1 s default is shorter than a busy 2-core CI machine takes to get there.
    expect: { poll: { timeout: 15_000 } },
    globalSetup: ["test/support/global-setup.ts"],
  },
});
