import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const src = resolve(import.meta.dirname, "../../src");

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? files(p) : /\.tsx?$/.test(name) ? [p] : [];
  });
}

// Node types reach the analyser, engine and makers as an explicit catalogue (src/nodes/index.ts), never by a
// module registering itself when imported: a caller that forgot such an import once saw every file as broken.
const BARE_NODES_IMPORT = /^\s*import\s+["'][^"']*\bnodes\/[^"']*["']\s*;?/m;

describe("node types are passed, not registered by import", () => {
  it("no file under src has a bare side-effect import of a nodes module", () => {
    const hits = files(src).filter((f) => BARE_NODES_IMPORT.test(readFileSync(f, "utf8")));
    expect(hits.map((f) => f.slice(src.length + 1))).toEqual([]);
  });

  it("the check sees such an import", () => {
    expect(BARE_NODES_IMPORT.test('import "../nodes/index.js";\n')).toBe(true);
    expect(BARE_NODES_IMPORT.test('import { nodeCatalogue } from "../nodes/index.js";\n')).toBe(false);
  });
});
