import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const SRC = resolve(import.meta.dirname, "../src");

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [join(dir, e.name)] : [],
  );
}

describe("the studio and the server's code", () => {
  it("web/src reaches src/ only for types (import type / export type): the bundle holds none of the server", () => {
    const runtime: string[] = [];
    for (const f of files(SRC)) {
      const text = readFileSync(f, "utf8");
      for (const m of text.matchAll(/^(import|export)\b([^;]*?)from\s+"((?:\.\.\/)+src\/[^"]*)"/gms)) {
        if (!/^\s*type\b/.test(m[2]!)) runtime.push(`${f.slice(SRC.length + 1)}: ${m[3]}`);
      }
    }
    expect(runtime).toEqual([]);
  });
});
