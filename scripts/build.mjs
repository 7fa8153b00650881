// Builds what `bin/weft` runs: every src/**/*.ts transpiled by esbuild to dist/ in the same layout (one
// .js per .ts, imports left as they are, so files found beside a module — prompts, reference workflows —
// are copied along). Type checking is `npm run typecheck`'s job, not this one's. Run by `npm ci`
// (the `prepare` script), `npm run build`, the test setup, and by bin/weft itself when src/ changed.
// The new tree is written beside dist/ and swapped in, so a `weft` starting meanwhile sees a whole tree.
import { copyFileSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { buildSync } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const src = join(root, "src");
const dist = join(root, "dist");
const next = join(root, `.dist-${process.pid}`);
const old = join(root, `.dist-old-${process.pid}`);

const files = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)]));
const all = files(src);

rmSync(next, { recursive: true, force: true });
buildSync({
  entryPoints: all.filter((f) => f.endsWith(".ts")),
  outdir: next,
  outbase: src,
  format: "esm",
  platform: "node",
  target: "node20",
  logLevel: "warning",
});
for (const f of all.filter((f) => !f.endsWith(".ts"))) {
  const out = join(next, relative(src, f));
  mkdirSync(dirname(out), { recursive: true });
  copyFileSync(f, out);
}
// bin/weft compares src/ against this file's time to know whether to rebuild.
writeFileSync(join(next, ".built"), `${new Date().toISOString()}\n`);
try {
  renameSync(dist, old);
} catch (e) {
  if (e.code !== "ENOENT") throw e;
}
try {
  renameSync(next, dist);
} catch (e) {
  // Another build swapped its tree in between our two renames: it is as new as ours.
  if (e.code !== "ENOTEMPTY" && e.code !== "EEXIST") throw e;
  rmSync(next, { recursive: true, force: true });
}
rmSync(old, { recursive: true, force: true });
