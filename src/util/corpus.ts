import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The shared corpus (real data others wrote, read in place): `WEFT_CORPUS_DIR`, else `../shared/corpus`
 * beside this checkout, which is where CI puts it. Never an absolute machine path.
 */
export function sharedCorpusDir(...parts: string[]): string {
  const env = process.env.WEFT_CORPUS_DIR;
  return join(env ? resolve(env) : fileURLToPath(new URL("../../../shared/corpus", import.meta.url)), ...parts);
}
