/**
 * scripts/ascii-source.mjs: the CLI bundle made ASCII without changing what it does. Comments and regular
 * expressions are escaped (a regular expression still matches the same text, with or without the u flag);
 * anything it cannot escape safely fails the build, naming where.
 */
import { describe, expect, it } from "vitest";
// @ts-expect-error: a build script in plain JavaScript, without types
import { asciiSource } from "../../scripts/ascii-source.mjs";

const ascii = (text: string): string => asciiSource(text, "test.js");

describe("asciiSource", () => {
  it("leaves ASCII text as it is", () => {
    const text = "const a = 1; // plain\n";
    expect(ascii(text)).toBe(text);
  });

  it("escapes comments and regular expressions; the expressions match as before", () => {
    const text = [
      "// a comment — with a dash",
      "/** g ∧ h */",
      "const border = /^[┌┐└┘─│+\\-|]$/;",
      "const dash = /\\s+[-–—:]\\s+/u;",
      "const smile = /😀/u;",
      "module.exports = { border, dash, smile };",
    ].join("\n");
    const out = ascii(text);
    expect(/[\u0080-\uffff]/.test(out)).toBe(false);
    const load = (src: string) => {
      const m = { exports: {} as Record<string, RegExp> };
      new Function("module", src)(m);
      return m.exports;
    };
    const before = load(text);
    const after = load(out);
    for (const s of ["┌", "─", "+", "x", " – ", " — ", " - ", "😀", "a"]) {
      expect(after.border?.test(s)).toBe(before.border?.test(s));
      expect(after.dash?.test(s)).toBe(before.dash?.test(s));
      expect(after.smile?.test(s)).toBe(before.smile?.test(s));
    }
  });

  it("refuses what an escape would change: a tagged template's raw text, an escaped character", () => {
    expect(() => ascii("const t = String.raw`a…b`;")).toThrow(/outside any comment or regular expression, at line 1/);
    expect(() => ascii("const r = /\\—/;")).toThrow(/escaped non-ASCII character/);
  });
});
