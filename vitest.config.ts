import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts", "web/test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    // expect.poll waits for a state; its 1 s default is shorter than a busy 2-core CI machine takes to get there.
    expect: { poll: { timeout: 15_000 } },
    globalSetup: ["test/support/global-setup.ts"],
  },
});
