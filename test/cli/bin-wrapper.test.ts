/**
 * bin/weft, run on a copy beside a stand-in build script and CLI: it rebuilds when a file under src/ is newer
 * than dist/.built (a checkout being edited) and only then, runs dist/ as it is where there is no src/ (an
 * install), and finds its tree when called through a link (npm's .bin) or from its own folder.
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { tempDir } from "../support/per-file.js";

const BIN = resolve(import.meta.dirname, "../../bin/weft");
const base = tempDir("bin-wrapper");
let n = 0;
let root = "";

/** A tree: bin/weft, a build script that leaves a mark, a CLI that prints its arguments, src/a.ts, dist/.built. */
function tree(): string {
  const r = join(base, `t${++n}`);
  for (const d of ["bin", "scripts", "src", "dist/cli"]) mkdirSync(join(r, d), { recursive: true });
  copyFileSync(BIN, join(r, "bin/weft"));
  writeFileSync(
    join(r, "scripts/build.mjs"),
    `import { writeFileSync } from "node:fs";\nwriteFileSync(${JSON.stringify(join(r, "built-mark"))}, "");\n`,
  );
  writeFileSync(join(r, "dist/cli/start.cjs"), "console.log(JSON.stringify(process.argv.slice(2)));\n");
  writeFileSync(join(r, "src/a.ts"), "");
  writeFileSync(join(r, "dist/.built"), "");
  // src older than the build: nothing to rebuild.
  const past = new Date(Date.now() - 60_000);
  utimesSync(join(r, "src/a.ts"), past, past);
  return r;
}

const weft = (cmd: string, args: string[] = [], cwd?: string) =>
  JSON.parse(execFileSync(cmd, args, { encoding: "utf8", cwd, stdio: ["ignore", "pipe", "pipe"] }));
const rebuilt = () => existsSync(join(root, "built-mark"));

describe("bin/weft", () => {
  beforeEach(() => {
    root = tree();
  });

  it("runs dist without building when src/ is older than the build", () => {
    expect(weft(join(root, "bin/weft"), ["run", "x y"])).toEqual(["run", "x y"]);
    expect(rebuilt()).toBe(false);
  });

  it("rebuilds first when a file under src/ is newer than the build", () => {
    const future = new Date(Date.now() + 60_000);
    utimesSync(join(root, "src/a.ts"), future, future);
    expect(weft(join(root, "bin/weft"), ["--help"])).toEqual(["--help"]);
    expect(rebuilt()).toBe(true);
  });

  it("rebuilds when there is no build yet", () => {
    rmSync(join(root, "dist/.built"));
    weft(join(root, "bin/weft"));
    expect(rebuilt()).toBe(true);
  });

  it("runs dist as it is where there is no src/ (an install)", () => {
    rmSync(join(root, "src"), { recursive: true });
    expect(weft(join(root, "bin/weft"), ["validate"])).toEqual(["validate"]);
    expect(rebuilt()).toBe(false);
  });

  it("finds its tree through a link and from its own folder", () => {
    const link = join(base, `link${n}`);
    symlinkSync(join(root, "bin/weft"), link);
    expect(weft(link, ["a"])).toEqual(["a"]);
    expect(weft("bash", ["weft", "b"], join(root, "bin"))).toEqual(["b"]);
    expect(rebuilt()).toBe(false);
  });
});
