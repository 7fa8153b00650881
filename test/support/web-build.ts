import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dirname, "../..");
const WEB = join(ROOT, "web");

function newestMtime(p: string): number {
  const st = statSync(p);
  if (!st.isDirectory()) return st.mtimeMs;
  return Math.max(st.mtimeMs, ...readdirSync(p).map((f) => newestMtime(join(p, f))));
}

/** Build the UI (web/dist, which the server serves) when it is missing or older than its sources: once per run, in the global setup. */
export function ensureWebBuilt(): void {
  const built = join(WEB, "dist", "index.html");
  const sources = Math.max(
    newestMtime(join(WEB, "src")),
    newestMtime(join(WEB, "index.html")),
    newestMtime(join(WEB, "vite.config.ts")),
  );
  if (existsSync(built) && statSync(built).mtimeMs >= sources) return;
  execFileSync(
    process.execPath,
    [join(ROOT, "node_modules/vite/bin/vite.js"), "build", "--config", join(WEB, "vite.config.ts")],
    { cwd: ROOT, stdio: "pipe" },
  );
}

export const CHROMIUM = "/usr/bin/chromium";
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
