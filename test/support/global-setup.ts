// Once per `vitest run`: build dist/ from the current src/, so tests that start `bin/weft` run the
// JavaScript users run, built from the code under test (bin/weft would also rebuild a stale tree, but
// test files starting it at once must not all rebuild together). The web studio (web/dist) is built here
// for the same reason: browser test files running at once each rebuilt a stale studio, and one build emptied
// web/dist while another file's server was serving it, so its pages never loaded.
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { ensureWebBuilt } from "./web-build.js";

export default function setup(): void {
  execFileSync(process.execPath, [join(import.meta.dirname, "../../scripts/build.mjs")], { stdio: "inherit" });
  ensureWebBuilt();
}
