import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { importCircles, importGraph } from "../support/import-graph.js";

const src = resolve(import.meta.dirname, "../../src");
const ALL = ["value", "type", "dynamic"] as const;

describe("import circles", () => {
  it("src/ has none: no two modules import each other, not even through type-only or dynamic imports", () => {
    const graph = importGraph(src);
    expect(graph.size).toBeGreaterThan(200);
    expect(importCircles(graph, [...ALL]).map((c) => c.join(" ↔ "))).toEqual([]);
  });

  const dir = mkdtempSync(join(tmpdir(), "weft-imports-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("the check finds circles of every import kind, through index files and re-exports", () => {
    mkdirSync(join(dir, "pkg"));
    writeFileSync(join(dir, "a.ts"), 'import { b } from "./b.js";\nexport const a = b;\n');
    writeFileSync(join(dir, "b.ts"), 'import type { A } from "./c.js";\nexport const b = 1 as unknown as A;\n');
    writeFileSync(join(dir, "c.ts"), 'export * from "./pkg/index.js";\nexport type A = number;\n');
    writeFileSync(join(dir, "pkg/index.ts"), 'export const lazy = () => import("../a.js");\n');
    writeFileSync(join(dir, "self.ts"), 'import "./self.js";\n');
    writeFileSync(
      join(dir, "free.ts"),
      'import { a } from "./a.js";\nimport { x } from "zod";\nexport const f = [a, x];\n',
    );
    const graph = importGraph(dir);
    expect(importCircles(graph, [...ALL])).toEqual([["a.ts", "b.ts", "c.ts", "pkg/index.ts"], ["self.ts"]]);
    // Without the type-only and dynamic edges there is no path back to a.ts.
    expect(importCircles(graph, ["value"])).toEqual([["self.ts"]]);
  });
});
