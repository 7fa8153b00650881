/**
 * Random-hyperplane LSH for cosine similarity: a vector's bucket in each of `LSH_TABLES` tables is the sign
 * pattern of its dot products with `LSH_BITS` fixed random hyperplanes. Similar vectors share buckets with high
 * probability, so a database can find a query's candidates through ordinary B-tree indexes on the buckets and
 * rank only those (multi-probe: the query's bucket and those one or two bits away). The hyperplanes are derived
 * from a fixed seed and the dimension, so every process (servers, workers, benches) computes the same buckets.
 */
import { seededRandom } from "../util/random.js";

export const LSH_TABLES = 4;
export const LSH_BITS = 12;

const planesByDim = new Map<number, Float64Array[]>();

function planes(dim: number): Float64Array[] {
  let p = planesByDim.get(dim);
  if (p) return p;
  const rand = seededRandom(0x5eed ^ dim);
  // Gaussian components (Box–Muller) make the hyperplanes' directions uniform on the sphere.
  const gauss = () => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
  p = Array.from({ length: LSH_TABLES * LSH_BITS }, () => Float64Array.from({ length: dim }, gauss));
  planesByDim.set(dim, p);
  return p;
}

/** The vector's bucket in each table (an integer below 2^LSH_BITS). */
export function lshBuckets(v: ArrayLike<number>): number[] {
  const ps = planes(v.length);
  const out: number[] = [];
  for (let t = 0; t < LSH_TABLES; t++) {
    let bucket = 0;
    for (let b = 0; b < LSH_BITS; b++) {
      const p = ps[t * LSH_BITS + b]!;
      let dot = 0;
      for (let i = 0; i < v.length; i++) dot += p[i]! * v[i]!;
      if (dot >= 0) bucket |= 1 << b;
    }
    out.push(bucket);
  }
  return out;
}

/** Buckets within `radius` bit flips of `bucket` (radius 0, 1 or 2), the bucket itself first. */
export function probes(bucket: number, radius: number): number[] {
  const out = [bucket];
  if (radius >= 1) for (let i = 0; i < LSH_BITS; i++) out.push(bucket ^ (1 << i));
  if (radius >= 2)
    for (let i = 0; i < LSH_BITS; i++) for (let j = i + 1; j < LSH_BITS; j++) out.push(bucket ^ (1 << i) ^ (1 << j));
  return out;
}
