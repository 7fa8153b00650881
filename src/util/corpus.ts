import { join, resolve } from "node:path";

/**
 * The shared corpus (real data others wrote, read in place): `WEFT_CORPUS_DIR`, else `../shared/corpus`
 * beside this checkout, which is where CI puts it. Never an absolute machine path.
 */
export function sharedCorpusDir(...parts: string[]): string {
  const env = process.env.WEFT_CORPUS_DIR;
  return join(env ? resolve(env) : resolve(import.meta.dirname, "../../../shared/corpus"), ...parts);
}
