import { spawnSync } from "node:child_process";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");

// The web UI has its own tsconfig (bundler resolution, JSX), outside the root `tsc`; this keeps it checked.
describe("web UI sources", () => {
  it("typecheck with web/tsconfig.json", { timeout: 240_000 }, () => {
    const r = spawnSync(
      process.execPath,
      [join(ROOT, "node_modules/typescript/bin/tsc"), "-p", join(ROOT, "web/tsconfig.json")],
      { cwd: ROOT, encoding: "utf8" },
    );
    expect(r.stdout + r.stderr).toBe("");
    expect(r.status).toBe(0);
  });
});
