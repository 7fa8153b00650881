import { decodeTime } from "ulid";
import { describe, expect, it } from "vitest";
import { bufferedPrng, newId } from "../../src/util/ids.js";

describe("newId", () => {
  it("makes ULIDs that are unique and increase even within one millisecond", () => {
    const before = Date.now();
    // More ids than one refill of the random buffer, so refills are crossed.
    const ids = Array.from({ length: 5000 }, () => newId());
    const after = Date.now();
    for (const id of ids) expect(id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(new Set(ids).size).toBe(ids.length);
    for (let i = 1; i < ids.length; i++) expect(ids[i]! > ids[i - 1]!).toBe(true);
    expect(decodeTime(ids[0]!)).toBeGreaterThanOrEqual(before);
    expect(decodeTime(ids.at(-1)!)).toBeLessThanOrEqual(after);
  });

  it("draws the random part from cryptographic words spread over [0, 1)", () => {
    const prng = bufferedPrng();
    const buckets = new Array<number>(32).fill(0);
    // 10,000 draws cross two refills of the 1,024-word buffer.
    for (let i = 0; i < 10_000; i++) {
      const x = prng();
      expect(x >= 0 && x < 1).toBe(true);
      buckets[Math.floor(x * 32)]! += 1;
    }
    // 312 expected per bucket; a stuck or short-range generator leaves buckets empty.
    for (const n of buckets) expect(n).toBeGreaterThan(200);
  });
});
