import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { sharedCorpusDir } from "../../src/util/corpus.js";

const root = resolve(import.meta.dirname, "../..");
// Spelled in two parts so this file does not match itself.
const MACHINE_PATH = new RegExp(`${["/wo", "rk/"].join("")}(shared|main|wcore|w\\d+)\\b`);

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? files(p) : /\.(ts|tsx|md|json|yml)$/.test(name) ? [p] : [];
  });
}

describe("paths", () => {
  const saved = process.env.WEFT_CORPUS_DIR;
  afterEach(() => {
    if (saved === undefined) delete process.env.WEFT_CORPUS_DIR;
    else process.env.WEFT_CORPUS_DIR = saved;
  });

  it("no source, test, bench or doc names a path of this machine", () => {
    const hits = ["src", "test", "bench", "docs"]
      .flatMap((d) => files(join(root, d)))
      .flatMap((f) =>
        readFileSync(f, "utf8")
          .split("\n")
          .flatMap((line, i) =>
            MACHINE_PATH.test(line) ? [`${f.slice(root.length + 1)}:${i + 1}: ${line.trim()}`] : [],
          ),
      );
    expect(hits).toEqual([]);
  });

  it("the shared corpus is ../shared/corpus beside the checkout unless WEFT_CORPUS_DIR says otherwise", () => {
    delete process.env.WEFT_CORPUS_DIR;
    expect(sharedCorpusDir("sopbench")).toBe(resolve(root, "../shared/corpus/sopbench"));
    process.env.WEFT_CORPUS_DIR = "some/where";
    expect(sharedCorpusDir("dify-dsl", "a.yml")).toBe(resolve("some/where/dify-dsl/a.yml"));
  });
});
