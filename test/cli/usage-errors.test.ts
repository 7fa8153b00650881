/**
 * Issue 36 item 8: every usage error, the argument parser's included, is one `error cli.…` line with a
 * suggestion and exit 2 (before, commander printed 12–46 lines of help and exited 1).
 */
import { describe, expect, it } from "vitest";
import { tempDir } from "../support/per-file.js";
import { weftCli } from "../support/weft-bin.js";

const weft = weftCli({ cwd: tempDir("usage") });

describe("usage errors of the argument parser", () => {
  const cases: [string[], string, RegExp][] = [
    [
      ["run", "wf.yml", "--inptu", "a=1"],
      "cli.unknown_option",
      /unknown option '--inptu' \(Did you mean --input\?\); see `weft run --help`/,
    ],
    [
      ["valdate", "wf.yml"],
      "cli.unknown_command",
      /unknown command 'valdate' \(Did you mean validate\?\); see `weft --help`/,
    ],
    [["validate"], "cli.missing_argument", /missing required argument 'file'; see `weft validate --help`/],
    [["apps", "pubish", "x"], "cli.unknown_command", /Did you mean publish\?\); see `weft apps --help`/],
    [["apps", "publish"], "cli.missing_argument", /see `weft apps publish --help`/],
    [["validate", "a.yml", "b.yml"], "cli.too_many_arguments", /see `weft validate --help`/],
  ];
  for (const [args, code, text] of cases) {
    it(`weft ${args.join(" ")} → one line, ${code}, exit 2`, () => {
      const r = weft(args);
      expect(r.code).toBe(2);
      expect(r.out).toBe("");
      const lines = r.err.trimEnd().split("\n");
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(new RegExp(`^error ${code.replace(".", "\\.")}: `));
      expect(lines[0]).toMatch(text);
    });
  }

  it("help and version still print and exit 0", () => {
    const help = weft(["--help"]);
    expect(help.code).toBe(0);
    expect(help.out).toContain("Usage: weft");
    expect(weft(["run", "--help"]).out).toContain("Usage: weft run");
    const v = weft(["--version"]);
    expect(v.code).toBe(0);
    expect(v.out.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });
});
