// Builds what `bin/weft` runs, from src/ to dist/, with esbuild. Type checking is `npm run typecheck`'s job, not
// this one's. Run by `npm ci` (the `prepare` script), `npm run build`, the test setup, and by bin/weft itself when
// src/ changed. The new tree is written beside dist/ and swapped in, so a `weft` starting meanwhile sees a whole tree.
//
// Bundled with code splitting (start-up, issue 33): node's ES module loader pays ~1 ms of CPU per module file
// (resolve, read, compile), and `weft run` loaded ~185 of them. Each entry point keeps its path under dist/ — the
// CLI, every module some file imports with `import()` (node types, commands, store backends, sandbox languages…),
// every module nothing imports (scripts run by path) and the modules loaded by path from a worker (PATH_LOADED);
// the code they share lives in dist/chunks/, each source module in exactly one file, so there is one instance of
// each as before. `import.meta.url` in a module is rewritten to the URL its own file would have had, so files found
// beside a module (prompts, reference workflows, the worker entries) are found wherever its code lands; the non-TS
// files of src/ are copied along. Packages stay external, except `zod`: bundled into dist/vendor/zod.js (~95 ES
// modules, its 40 locales included, were ~35 ms of every command's CPU). Other packages' own imports of zod still
// get the package: zod keeps its registry and config on globalThis and checks `instanceof` by traits, so schemas
// cross between the two copies. dist/.sources.json maps each output file to the source modules it holds (for the
// tests that check what a command loads).
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build, buildSync } from "esbuild";
import { asciiSource } from "./ascii-source.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const src = join(root, "src");
const dist = join(root, "dist");
const next = join(root, `.dist-${process.pid}`);
const old = join(root, `.dist-old-${process.pid}`);
/**
 * Packages compiled into the bundle, and so into its code cache, rather than `require`d (and compiled) on every
 * start: zod (one copy for all of Weft, as dist/vendor/zod.js is for the ES module tree) and the pure-JavaScript
 * packages every `weft run` loads. Each must work without its own files on disk (no __dirname, .wasm or addon)
 * and without being the same instance as another package's copy.
 */
const IN_BUNDLE = ["zod", "commander", "@commander-js/extra-typings", "js-yaml", "@huggingface/jinja", "ulid", "secure-json-parse"];

/** Modules a worker thread loads by their path under dist/ (besides being imported on the main thread). */
const PATH_LOADED = ["jinja/bounded.ts", "tools/extract/run.ts"];

const files = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)]));
const all = files(src);
const ts = all.filter((f) => f.endsWith(".ts"));
const known = new Set(ts);
const posix = (p) => p.split("\\").join("/");
/** A relative specifier as written in `from` (`./x.js` names ./x.ts). */
const target = (from, spec) => resolve(dirname(from), spec).replace(/\.js$/, ".ts");

// Entries: over-including one only splits the code a little more; missing one that is loaded by path breaks that
// load, so the scan errs on the side of entries.
const imported = new Set();
const entries = new Set([join(src, "cli/main.ts"), ...PATH_LOADED.map((f) => join(src, f))]);
for (const f of ts) {
  const text = readFileSync(f, "utf8");
  for (const m of text.matchAll(/\bfrom\s*["'](\.[^"']+)["']|\bimport\s*["'](\.[^"']+)["']/g))
    imported.add(target(f, m[1] ?? m[2]));
  for (const m of text.matchAll(/\bimport\(\s*["'](\.[^"']+)["']\s*\)/g)) {
    const t = target(f, m[1]);
    if (known.has(t)) entries.add(t);
  }
}
for (const f of ts) if (!imported.has(f) && !f.endsWith(".d.ts")) entries.add(f);

const metaUrls = [];
const plugin = {
  name: "weft",
  setup(b) {
    b.onResolve({ filter: /^zod$/ }, () => ({ path: "zod", external: true }));
    b.onLoad({ filter: /\.ts$/ }, (a) => {
      let contents = readFileSync(a.path, "utf8");
      if (contents.includes("import.meta.url")) {
        metaUrls.push(posix(relative(src, a.path)).replace(/\.ts$/, ".js"));
        contents = contents.replaceAll("import.meta.url", `import.meta.__weftUrl${metaUrls.length - 1}`);
      }
      return { contents, loader: "ts" };
    });
  },
};

rmSync(next, { recursive: true, force: true });
try {
  const common = { format: "esm", platform: "node", target: "node20", logLevel: "warning" };
  const vendorZod = join(next, "vendor/zod.js");
  buildSync({ ...common, stdin: { contents: 'export * from "zod";', resolveDir: root }, bundle: true, outfile: vendorZod });
  const built = await build({
    ...common,
    entryPoints: [...entries],
    outdir: next,
    outbase: src,
    bundle: true,
    splitting: true,
    packages: "external",
    // Classes and functions keep their names (an error's name is its class's).
    keepNames: true,
    chunkNames: "chunks/[name]-[hash]",
    plugins: [plugin],
    metafile: true,
    write: false,
  });
  const specFrom = (out, file) => {
    const to = posix(relative(dirname(out), file));
    return JSON.stringify(to.startsWith(".") ? to : `./${to}`);
  };
  for (const out of built.outputFiles) {
    let text = out.text.replace(
      /import\.meta\.__weftUrl(\d+)/g,
      (_, i) => `new URL(${specFrom(out.path, join(next, metaUrls[Number(i)]))}, import.meta.url).href`,
    );
    if (text.includes('"zod"')) {
      // esbuild ends every static import and re-export with `from "zod";` on a line of its own.
      const spec = specFrom(out.path, vendorZod);
      text = text.replace(/^([^\n"'`]*\bfrom )"zod";$/gm, (_, head) => `${head}${spec};`);
      text = text.replace(/\bimport\("zod"\)/g, `import(${spec})`);
      // Anything else naming zod would quietly load the second copy: name it.
      if (/["']zod["']/.test(text.replace(/^\/\/[^\n]*$/gm, "")))
        throw new Error(`${relative(next, out.path)} names "zod" other than in an import; extend build.mjs`);
    }
    if (text.includes("__weftUrl")) throw new Error(`${relative(next, out.path)}: an import.meta.url left unrewritten`);
    mkdirSync(dirname(out.path), { recursive: true });
    writeFileSync(out.path, text);
  }
  const sources = {};
  for (const [out, o] of Object.entries(built.metafile.outputs)) {
    if (!out.endsWith(".js")) continue;
    sources[posix(relative(next, resolve(root, out)))] = Object.keys(o.inputs).map((i) =>
      posix(relative(src, resolve(root, i))).replace(/\.ts$/, ".js"),
    );
  }
  writeFileSync(join(next, ".sources.json"), `${JSON.stringify(sources)}\n`);
  for (const f of all.filter((f) => !f.endsWith(".ts"))) {
    const out = join(next, relative(src, f));
    mkdirSync(dirname(out), { recursive: true });
    copyFileSync(f, out);
  }
  await buildCliBundle(next);
  // bin/weft compares src/ against this file's time to know whether to rebuild.
  writeFileSync(join(next, ".built"), `${new Date().toISOString()}\n`);
} catch (e) {
  rmSync(next, { recursive: true, force: true });
  throw e;
}
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

/**
 * The CLI as one CommonJS file, dist/cli/weft.cjs, and V8's code cache for it, dist/cli/weft.cjs.cache: what
 * bin/weft runs, through dist/cli/start.cjs (issue 33's start-up). Node 20's ES module loader costs about 1 ms per
 * file and compiles every file from source on every start (its compile cache is Node 22's); one script compiled
 * from a cache costs neither. The bundle holds every Weft module the CLI can reach (a module reached through
 * `import()` is initialised on first use, as before) and zod; other packages are `require`d from node_modules,
 * except those that cannot be (ES-module-only packages), which are bundled. `import()` of a package becomes a
 * `require` too, so each package has one instance in the process. `import.meta.url` is each module's URL in the
 * ES module tree beside it, so files found beside a module are found as there. The ES module tree stays: the
 * worker threads load from it, and so do tests that watch which modules a command loads.
 *
 * The cache is made here, by running a small workflow through the bundle (scripts/code-cache-warm-up.yml, with no
 * code node: QuickJS changes a V8 flag): V8 keeps the functions that ran, so the next start deserialises them
 * instead of compiling. V8 refuses a cache made by another V8 version or
 * under other V8 flags (start.cjs then compiles from source), so it is made by plain `node`, as bin/weft runs it.
 */
/** Whether node loads `file` as an ES module: .mjs, or .js under a package.json saying "type": "module". */
function isEsm(file) {
  if (file.endsWith(".mjs")) return true;
  if (!file.endsWith(".js")) return false;
  for (let dir = dirname(file); dir !== dirname(dir); dir = dirname(dir)) {
    let pkg;
    try {
      pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    } catch {
      continue;
    }
    return pkg.type === "module";
  }
  return false;
}

async function buildCliBundle(out) {
  const requireFrom = (dir) => createRequire(join(dir, "x.js"));
  const cjsPlugin = {
    name: "weft-cjs",
    setup(b) {
      b.onResolve({ filter: /^[^./]/ }, (a) => {
        if (a.path.startsWith("node:") || IN_BUNDLE.some((p) => a.path === p || a.path.startsWith(`${p}/`))) return undefined;
        let file;
        try {
          file = requireFrom(a.resolveDir).resolve(a.path);
        } catch {
          return undefined; // no CommonJS entry: bundled
        }
        // An ES module behind a `require` gets node's namespace object, which esbuild's interop misreads: bundled.
        return isEsm(file) ? undefined : { path: a.path, external: true };
      });
      b.onLoad({ filter: /\.ts$/ }, (a) => {
        let contents = readFileSync(a.path, "utf8");
        const rel = posix(relative(src, a.path)).replace(/\.ts$/, ".js");
        contents = contents.replaceAll("import.meta.url", `__weftUrl(${JSON.stringify(rel)})`);
        return { contents, loader: "ts" };
      });
    },
  };
  const file = join(out, "cli/weft.cjs");
  const bundled = await build({
    entryPoints: [join(src, "cli/main.ts")],
    outfile: file,
    format: "cjs",
    platform: "node",
    target: "node20",
    bundle: true,
    keepNames: true,
    supported: { "dynamic-import": false },
    banner: {
      js: 'var __weftUrl = (rel) => require("node:url").pathToFileURL(require("node:path").join(__dirname, "..", rel)).href;',
    },
    logLevel: "warning",
    logOverride: { "empty-import-meta": "error" },
    // Licence comments go beside the bundle (weft.cjs.LEGAL.txt), kept whole, not escaped into ASCII.
    legalComments: "external",
    plugins: [cjsPlugin],
    write: false,
  });
  for (const o of bundled.outputFiles)
    writeFileSync(o.path, o.path === file ? asciiSource(o.text, "dist/cli/weft.cjs") : o.contents);
  const warm = mkdtempSync(join(tmpdir(), "weft-build-"));
  try {
    // Nothing of the builder's own setup (a config naming a database, a tracing endpoint) reaches the warm-up.
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(WEFT_|OTEL_)/.test(k)));
    const args = ["run", join(root, "scripts/code-cache-warm-up.yml"), "--input", "text=warm up", "--db", ":memory:"];
    const r = spawnSync(process.execPath, [join(out, "cli/start.cjs"), ...args], {
      cwd: warm,
      env: { ...env, WEFT_WRITE_CODE_CACHE: "1", WEFT_CODE_CACHE_NAME: join(dist, "cli/weft.cjs") },
      encoding: "utf8",
    });
    if (r.status !== 0) throw new Error(`the CLI bundle failed its warm-up (weft run): ${r.stderr || r.error}`);
  } finally {
    rmSync(warm, { recursive: true, force: true });
  }
}
