/**
 * `weft run` and `weft validate` turn zod's JIT off before any schema is built (src/cli/one-shot.ts: each schema is parsed about
 * once, so compiling its fast path costs more than it saves); long-lived commands such as `weft worker` keep it.
 * zod keeps its settings on globalThis (`__zod_globalConfig`), which a preload reads when the command ends.
 */
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { tempDir } from "../support/per-file.js";

const ROOT = resolve(import.meta.dirname, "../..");
const dir = tempDir("one-shot");
const preload = join(dir, "zod-config.mjs");
writeFileSync(
  preload,
  `import { writeSync } from "node:fs";
process.on("exit", () => writeSync(2, "ZOD " + JSON.stringify(globalThis.__zod_globalConfig ?? null) + "\\n"));
`,
);

/** zod's global settings when `weft ...args` (the built CLI) ends, and its exit status. */
function zodConfigAfter(args: string[]): { config: Record<string, unknown> | null; status: number | null } {
  const r = spawnSync(
    process.execPath,
    ["--import", pathToFileURL(preload).href, join(ROOT, "dist/cli/main.js"), ...args],
    {
      encoding: "utf8",
      cwd: dir,
    },
  );
  const line = r.stderr.split("\n").find((l) => l.startsWith("ZOD "));
  expect(line, r.stderr).toBeDefined();
  return { config: JSON.parse(line!.slice(4)), status: r.status };
}

describe("zod's JIT", () => {
  it("is off for weft run, set before any schema is built", () => {
    const example = join(ROOT, "examples/word-stats.yml");
    const r = zodConfigAfter(["run", example, "--input", "text=the quick brown fox", "--db", ":memory:"]);
    expect(r.status).toBe(0);
    expect(r.config).toMatchObject({ jitless: true });
  });

  it("is off for weft validate", () => {
    const r = zodConfigAfter(["validate", join(ROOT, "examples/word-stats.yml")]);
    expect(r.status).toBe(0);
    expect(r.config).toMatchObject({ jitless: true });
  });

  it("stays on for a long-lived command (weft worker), registered by the same module as run", () => {
    const r = zodConfigAfter(["worker", "--help"]);
    expect(r.status).toBe(0);
    // zod is loaded (the run module builds its schemas), so the check sees its settings.
    expect(r.config).not.toBeNull();
    expect(r.config?.jitless).toBeUndefined();
  });
});
