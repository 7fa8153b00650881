import { randomFillSync } from "node:crypto";
import { monotonicFactory } from "ulid";

/**
 * ulid's own generator asks the OS for one byte per character (16 crypto calls per id, a measurable share of a
 * small run); this one draws the same cryptographic randomness from a buffer refilled 4 KB at a time.
 */
export function bufferedPrng(): () => number {
  const words = new Uint32Array(1024);
  let next = words.length;
  return () => {
    if (next === words.length) {
      randomFillSync(words);
      next = 0;
    }
    // A uniform 32-bit word scaled into [0, 1), as ulid's PRNG contract asks.
    return (words[next++] as number) / 0x1_0000_0000;
  };
}

/**
 * ULIDs that increase within this process even inside one millisecond (plain `ulid()` is random there),
 * so the stores' `ORDER BY created_at, id` lists rows in the order they were made.
 */
export const newId: () => string = monotonicFactory(bufferedPrng());
