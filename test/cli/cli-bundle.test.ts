/**
 * The CLI as bin/weft runs it: one CommonJS bundle (dist/cli/weft.cjs) compiled with the V8 code cache the build
 * made (scripts/build.mjs, dist/cli/start.cjs). The cache must be one plain node accepts, every package the bundle
 * leaves to `require` must be CommonJS (an ES module behind `require` breaks esbuild's interop), a module reached
 * through `import()` must still be initialised only when used, and `weft run` must require no package its
 * workflow does not need.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");
const BUNDLE = join(ROOT, "dist/cli/weft.cjs");
const SAMPLE = join(ROOT, "examples/word-stats.yml");
const RUN = ["run", SAMPLE, "--input", "text=the quick brown fox", "--db", ":memory:"];

const node = (args: string[]) => {
  const r = spawnSync(process.execPath, args, { encoding: "utf8", cwd: ROOT });
  if (r.error) throw r.error;
  return r;
};

describe("the CLI bundle", () => {
  const traced = join(ROOT, `dist/cli/weft-traced-${process.pid}.cjs`);
  afterAll(() => rmSync(traced, { force: true }));

  it("has a code cache plain node accepts", () => {
    const check = `const vm = require("node:vm"), fs = require("node:fs"), M = require("node:module");
const s = new vm.Script(M.wrap(fs.readFileSync(${JSON.stringify(BUNDLE)}, "latin1")), { cachedData: fs.readFileSync(${JSON.stringify(`${BUNDLE}.cache`)}) });
console.log(s.cachedDataRejected);`;
    const r = node(["-e", check]);
    expect(r.stderr).toBe("");
    expect(r.stdout.trim()).toBe("false");
  });

  it("is ASCII, which start.cjs reads as latin1 (non-ASCII in a comment or a regular expression is escaped)", () => {
    const text = readFileSync(BUNDLE, "latin1");
    expect(/[\u0080-\uffff]/.test(text)).toBe(false);
  });

  it("made its cache under the bundle's final path, which V8 keeps for stack traces", () => {
    const cache = readFileSync(`${BUNDLE}.cache`);
    expect(cache.includes(Buffer.from(BUNDLE))).toBe(true);
    expect(cache.includes(Buffer.from("/.dist-"))).toBe(false);
  });

  it("leaves only CommonJS packages to require", () => {
    const packages = [...readFileSync(BUNDLE, "utf8").matchAll(/\brequire\("([^".][^"]*)"\)/g)]
      .map((m) => m[1] as string)
      .filter((p) => !p.startsWith("node:"));
    expect(packages.length).toBeGreaterThan(20);
    // node 20.19+ returns an ES module's namespace object from require: what esbuild's interop would misread.
    const check = `const r = require("node:module").createRequire(${JSON.stringify(BUNDLE)});
const { isModuleNamespaceObject } = require("node:util").types;
const bad = ${JSON.stringify([...new Set(packages)])}.filter((p) => isModuleNamespaceObject(r(p)));
console.log(JSON.stringify(bad));`;
    const r = node(["-e", check]);
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout.split("\n").filter(Boolean).at(-1) as string)).toEqual([]);
  });

  it("initialises a module reached through import() only when used: `weft run` of the sample", () => {
    const text = readFileSync(BUNDLE, "utf8");
    const helper = "var __esm = (fn, res, err2) => function __init() {\n";
    expect(text.includes(helper)).toBe(true);
    const record =
      'if (fn) { (globalThis.__weftInits ??= []).push(__getOwnPropNames(fn)[0]); if (globalThis.__weftInits.length === 1) process.on("exit", () => process.stderr.write("INITS " + JSON.stringify(globalThis.__weftInits) + "\\n")); }\n';
    writeFileSync(traced, text.replace(helper, helper + record));
    const r = node([traced, ...RUN]);
    expect(r.status, r.stderr).toBe(0);
    const inits = JSON.parse(/INITS (.*)/.exec(r.stderr)?.[1] ?? "[]") as string[];
    for (const used of ["src/nodes/code.ts", "src/nodes/if-else.ts", "src/nodes/template-transform.ts"])
      expect(inits).toContain(used);
    for (const unused of ["src/nodes/llm.ts", "src/nodes/http-request.ts", "src/nodes/agent.ts", "src/server/index.ts"])
      expect(inits).not.toContain(unused);
    expect(inits.filter((m) => m.startsWith("src/store/sqlite/"))).toEqual([]);
  });

  it("`weft run` of the sample requires no package its workflow does not need", () => {
    const hook = join(ROOT, `dist/cli/require-log-${process.pid}.cjs`);
    writeFileSync(
      hook,
      `const M = require("node:module"); const load = M._load; const seen = new Set();
M._load = function (request) { if (!/^(node:|\\.|\\/)/.test(request)) seen.add(request); return load.apply(this, arguments); };
process.on("exit", () => process.stderr.write("REQUIRED " + JSON.stringify([...seen]) + "\\n"));\n`,
    );
    try {
      const r = node(["-r", hook, join(ROOT, "dist/cli/start.cjs"), ...RUN]);
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toContain("verdict: short (4 words)");
      const required = JSON.parse(/REQUIRED (.*)/.exec(r.stderr)?.[1] ?? "[]") as string[];
      expect(required).toContain("quickjs-emscripten");
      const unneeded =
        /^(better-sqlite3|sqlite-vec|pg|bullmq|ioredis|ai|@ai-sdk\/|hono|@hono\/|@opentelemetry\/|pino|undici|docx|pdfkit|echarts)/;
      expect(required.filter((p) => unneeded.test(p))).toEqual([]);
    } finally {
      rmSync(hook, { force: true });
    }
  });
});
