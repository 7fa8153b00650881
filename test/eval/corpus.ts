import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { corpusPath } from "../support/corpus.js";

/** The shared corpus; a missing one is named, not left to fail on the first file read. */
export function corpusDir(): string {
  const dir = corpusPath();
  if (!existsSync(dir)) throw new Error(`shared corpus not found at ${dir} (set WEFT_CORPUS_DIR to its location)`);
  return dir;
}

export function readCorpusJson<T = unknown>(rel: string): T {
  return JSON.parse(readFileSync(resolve(corpusDir(), rel), "utf8")) as T;
}
