import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { importGraph, topFolder, upwardImports } from "../support/import-graph.js";

const src = resolve(import.meta.dirname, "../../src");

/**
 * The folders of src/, lowest layer first. A module imports only from its own folder or a lower layer (type-only
 * and dynamic imports too), so folders of one layer never import each other. A new folder gets a place here;
 * an import that goes up means the imported type or module belongs lower down, not that the table should bend.
 */
const LAYERS = [
  // The error catalogue is data every layer may read (the analyser's codes, the CLI's and server's statuses).
  ["util", "errors"],
  ["ir"],
  ["jinja", "sandbox", "llm", "tools", "analysis", "store"],
  // The edit algebra works on the ir and checks its results with the analyser.
  ["nodes", "knowledge", "edits"],
  // The engine runs the ir on the store's contracts and the node types, and knows nothing of the DSL files.
  ["dsl", "engine"],
  // What a run is given: services wired from weft.config.json, workflows served as tools.
  ["runtime"],
  ["authoring", "publish", "secrets", "observability", "mine"],
  // Measures the generator (authoring), so it sits above it.
  ["eval"],
  ["apptests", "optimize", "compile", "queue"],
  ["triggers"],
  ["server"],
  // weft.config.json's schema gathers each section's schema from the code it configures, the server's sign-in too.
  ["config"],
  ["cli"],
] as const;

describe("layers", () => {
  const graph = importGraph(src);

  it("every folder of src/ has one place in the table, and every place is a folder", () => {
    const folders = [...new Set([...graph.keys()].map(topFolder))].sort();
    const placed = LAYERS.flat();
    expect(new Set(placed).size).toBe(placed.length);
    expect([...placed].sort()).toEqual(folders);
  });

  it("no module of src/ imports from its own layer's other folders or from a higher layer", () => {
    expect(graph.size).toBeGreaterThan(200);
    expect(upwardImports(graph, LAYERS)).toEqual([]);
  });

  const dir = mkdtempSync(join(tmpdir(), "weft-layers-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("the check finds upward and sideways imports of every kind, and imports from a folder left out", () => {
    for (const d of ["base", "left", "right", "top", "stray"]) mkdirSync(join(dir, d));
    writeFileSync(
      join(dir, "base/a.ts"),
      'import type { T } from "../top/index.js";\nexport const a = 1 as unknown as T;\n',
    );
    writeFileSync(
      join(dir, "left/l.ts"),
      'import { a } from "../base/a.js";\nexport const l = () => import("../right/r.js");\nexport const x = a;\n',
    );
    writeFileSync(join(dir, "right/r.ts"), 'import { a } from "../base/a.js";\nexport const r = a;\n');
    writeFileSync(
      join(dir, "top/index.ts"),
      'export * from "../left/l.js";\nexport * from "../stray/s.js";\nexport type T = number;\n',
    );
    writeFileSync(join(dir, "stray/s.ts"), 'export { r } from "../right/r.js";\n');
    const layers = [["base"], ["left", "right"], ["top"]];
    expect(upwardImports(importGraph(dir), layers)).toEqual([
      "base/a.ts → top/index.ts (type)",
      "left/l.ts → right/r.ts (dynamic)",
      "top/index.ts → stray/s.ts (value)",
    ]);
    expect(upwardImports(importGraph(dir), [["base"], ["left", "right"], ["stray"], ["top"]])).toEqual([
      "base/a.ts → top/index.ts (type)",
      "left/l.ts → right/r.ts (dynamic)",
    ]);
  });
});
