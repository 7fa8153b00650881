import { existsSync, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));

/** shared/corpus lives beside the repo (dev: /work/shared, CI: a copy next to the clone). */
export function corpusDir(): string {
  const candidates = [process.env.WEFT_CORPUS_DIR, resolve(here, "../../../shared/corpus"), "/work/shared/corpus"];
  for (const c of candidates) if (c && existsSync(c)) return c;
  throw new Error(`shared corpus not found (tried ${candidates.filter(Boolean).join(", ")})`);
}

export function readCorpusJson<T = unknown>(rel: string): T {
  return JSON.parse(readFileSync(resolve(corpusDir(), rel), "utf8")) as T;
}
