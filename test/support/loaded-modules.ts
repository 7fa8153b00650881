import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const ROOT = resolve(import.meta.dirname, "../..");
const DIST = pathToFileURL(join(ROOT, "dist/")).href;
let sources: Record<string, string[]> | undefined;

/** The source modules a loaded URL holds, as dist URLs (`url` itself when it is no file of dist/). */
function sourceModules(url: string): string[] {
  if (!url.startsWith(DIST)) return [url];
  sources ??= JSON.parse(readFileSync(join(ROOT, "dist/.sources.json"), "utf8")) as Record<string, string[]>;
  const file = url.slice(DIST.length);
  const held = sources[file];
  if (!held) return [url];
  return [...(file.startsWith("chunks/") ? [] : [url]), ...held.map((m) => DIST + m)];
}

/**
 * Run `node dist/cli/main.js ...args` (the CLI's ES module tree: the modules bin/weft's bundle holds, imported the same way;
 * test/cli/cli-bundle.test.ts checks the bundle initialises its `import()` targets only on use) with a resolve hook that logs every
 * module its main thread resolves. Returns the distinct URLs (node: builtins included) and the exit status, so a
 * command that ends non-zero (a `validate` that reports errors) still says what it loaded. `name` keeps the
 * hook's files and log apart within `dir`. dist/ is bundled (scripts/build.mjs): a loaded file of it stands for
 * the source modules it holds, each named by the URL its own file would have (`dist/ir/errors.js`); a shared
 * chunk (dist/chunks/) is not named itself.
 */
export function modulesLoadedBy(
  dir: string,
  name: string,
  args: string[],
  o: { cwd?: string } = {},
): { urls: string[]; status: number | null; stderr: string } {
  const log = join(dir, `${name}.txt`);
  const hooks = join(dir, `${name}-hooks.mjs`);
  writeFileSync(
    hooks,
    `import { appendFileSync } from "node:fs";
export async function resolve(spec, ctx, next) {
  const r = await next(spec, ctx);
  appendFileSync(${JSON.stringify(log)}, r.url + "\\n");
  return r;
}
`,
  );
  const register = join(dir, `${name}-register.mjs`);
  writeFileSync(
    register,
    `import { register } from "node:module";\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`,
  );
  writeFileSync(log, "");
  const r = spawnSync(
    process.execPath,
    ["--import", pathToFileURL(register).href, join(ROOT, "dist/cli/main.js"), ...args],
    { encoding: "utf8", cwd: o.cwd },
  );
  if (r.error) throw r.error;
  return {
    urls: [...new Set(readFileSync(log, "utf8").split("\n").filter(Boolean).flatMap(sourceModules))],
    status: r.status,
    stderr: r.stderr,
  };
}
