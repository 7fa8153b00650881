import { describe, expect, it } from "vitest";
import { parseDslVersion } from "../../src/dsl/dify/index.js";

// Plain releases (`0.3.0`, every real DSL version) are read without the PEP 440 pattern: they must read exactly
// as that pattern reads them (a leading space or `v` sends the same release through it).
describe("parseDslVersion", () => {
  it.each(["0.1.0", "0.3.0", "0.6.0", "1", "0.2", "10.20.30", "0.1.5.7", "007.0.1"])(
    "%s reads as through PEP 440",
    (v) => {
      expect(parseDslVersion(v)).toEqual(parseDslVersion(` ${v}`));
      expect(parseDslVersion(v)).toEqual(parseDslVersion(`v${v}`));
      expect(parseDslVersion(v)?.release).toEqual(v.split(".").map(Number));
    },
  );
  it.each(["", ".", "0.", ".1", "0..1", "0.1a", "x"])("%j is not a plain release", (v) => {
    expect(parseDslVersion(v)).toEqual(parseDslVersion(` ${v}`));
  });
});
