import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { longFunctions } from "../support/function-lengths.js";

const src = resolve(import.meta.dirname, "../../src");

// Where a reader most often reads one function alone: the engine's loop, what the model's answers go through,
// the HTTP surface and the file formats. A function over this many lines (nested callbacks included) is split
// where a reader would want to look at one part alone.
const LIMIT = 80;
const FOLDERS = ["engine", "authoring", "server", "dsl"];

describe("function length", () => {
  it.each(FOLDERS)(`no function in src/%s is over ${LIMIT} lines`, (folder) => {
    expect(longFunctions(join(src, folder), LIMIT, src)).toEqual([]);
  });

  const dir = mkdtempSync(join(tmpdir(), "weft-fnlen-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("counts declarations, methods and callbacks by their whole span, nested functions included", () => {
    const body = (n: number) => Array.from({ length: n }, (_, i) => `  const v${i} = ${i};`).join("\n");
    writeFileSync(
      join(dir, "a.ts"),
      [
        `export function long() {\n${body(3)}\n  const inner = () => {\n${body(4)}\n  };\n  return inner;\n}`,
        `export class K {\n  method() {\n${body(5)}\n  }\n}`,
        `register(() => {\n${body(2)}\n});`,
      ].join("\n"),
    );
    expect(longFunctions(dir, 4, dir)).toEqual([
      "a.ts long (12 lines)",
      "a.ts method (7 lines)",
      "a.ts inner (6 lines)",
    ]);
    expect(longFunctions(dir, 3, dir)).toContain("a.ts (callback of register) (4 lines)");
  });
});
