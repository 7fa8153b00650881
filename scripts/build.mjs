// Builds what `bin/weft` runs: every src/**/*.ts transpiled by esbuild to dist/ in the same layout (one
// .js per .ts, imports left as they are, so files found beside a module — prompts, reference workflows —
// are copied along), except `zod`: Weft's imports of it name dist/vendor/zod.js, zod bundled into one file.
// zod's package is ~95 ES modules (its 40 locales load whatever the language); resolving, reading and
// compiling them one by one was ~35 ms of every `weft` command's CPU, the one file costs a fraction of that.
// Other packages' own imports of zod still get the package: zod keeps its registry and config on globalThis
// and checks `instanceof` by traits, so schemas cross between the two copies. Type checking is
// `npm run typecheck`'s job, not this one's. Run by `npm ci` (the `prepare` script), `npm run build`, the
// test setup, and by bin/weft itself when src/ changed.
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
const common = { format: "esm", platform: "node", target: "node20", logLevel: "warning" };
const vendorZod = join(next, "vendor/zod.js");
buildSync({ ...common, stdin: { contents: 'export * from "zod";', resolveDir: root }, bundle: true, outfile: vendorZod });
const built = buildSync({ ...common, entryPoints: all.filter((f) => f.endsWith(".ts")), outdir: next, outbase: src, write: false });
for (const out of built.outputFiles) {
  let text = out.text;
  if (text.includes('"zod"')) {
    // esbuild ends every static import and re-export with `from "zod";` on a line of its own.
    const to = relative(dirname(out.path), vendorZod).split("\\").join("/");
    const spec = JSON.stringify(to.startsWith(".") ? to : `./${to}`);
    text = text.replace(/^([^\n"'`]*\bfrom )"zod";$/gm, (_, head) => `${head}${spec};`);
    // Anything else naming zod (a dynamic import) would quietly load the second copy: name it.
    if (/["']zod["']/.test(text.replace(/^\/\/[^\n]*$/gm, "")))
      throw new Error(`${relative(next, out.path)} names "zod" other than in a static import; extend build.mjs`);
  }
  mkdirSync(dirname(out.path), { recursive: true });
  writeFileSync(out.path, text);
}
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
