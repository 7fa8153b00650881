// Once per `vitest run`: build dist/ from the current src/, so tests that start `bin/weft` run the
// JavaScript users run, built from the code under test (bin/weft would also rebuild a stale tree, but
// test files starting it at once must not all rebuild together).
import { execFileSync } from "node:child_process";
import { join } from "node:path";

export default function setup(): void {
  execFileSync(process.execPath, [join(import.meta.dirname, "../../scripts/build.mjs")], { stdio: "inherit" });
}
