/** Fixed-width bitsets over producer indices; treated as immutable once built (shared freely). */
export type Bits = Uint32Array;

export function emptyBits(words: number): Bits {
  return new Uint32Array(words);
}

export function hasBit(b: Bits, i: number): boolean {
  return ((b[i >>> 5]! >>> (i & 31)) & 1) === 1;
}

export function withBit(b: Bits, i: number): Bits {
  if (hasBit(b, i)) return b;
  const c = b.slice();
  c[i >>> 5] = c[i >>> 5]! | (1 << (i & 31));
  return c;
}

/** a ∪= b, in place on a fresh accumulator. */
export function unionInto(acc: Bits, b: Bits): void {
  for (let w = 0; w < acc.length; w++) acc[w] = acc[w]! | b[w]!;
}

/** a ∩= b, in place on a fresh accumulator. */
export function intersectInto(acc: Bits, b: Bits): void {
  for (let w = 0; w < acc.length; w++) acc[w] = acc[w]! & b[w]!;
}

export function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24) | 0;
}

export function bitCount(b: Bits): number {
  let n = 0;
  for (let w = 0; w < b.length; w++) n += popcount(b[w]!);
  return n;
}

export function* bitsOf(b: Bits): Generator<number> {
  for (let w = 0; w < b.length; w++) {
    let x = b[w]!;
    while (x !== 0) {
      const low = x & -x;
      yield w * 32 + (31 - Math.clz32(low));
      x ^= low;
    }
  }
}
