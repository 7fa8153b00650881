import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { importDify, readYaml } from "../../src/dsl/dify/index.js";
import { CORPUS_DIR, corpusFiles } from "./corpus.js";

/** Paths at which one object is reached a second time (shared mutable state: editing one place edits the other). */
function sharedObjects(root: unknown): string[] {
  const seen = new Map<object, string>();
  const out: string[] = [];
  const walk = (v: unknown, path: string) => {
    if (v === null || typeof v !== "object") return;
    const first = seen.get(v);
    if (first !== undefined) {
      out.push(`${path} is ${first}`);
      return;
    }
    seen.set(v, path);
    for (const [k, x] of Object.entries(v)) walk(x, `${path}.${k}`);
  };
  walk(root, "workflow");
  return out;
}

const app = (graph: string) => `app: {name: a, mode: workflow}
kind: app
version: 0.3.0
workflow:
  graph:
${graph}`;

// The import copies the whole IR only when the YAML may hold aliases; otherwise it must build fresh objects.
describe("an imported workflow shares no objects", () => {
  it("YAML aliases are copied apart", () => {
    const { workflow } = importDify(
      app(`    nodes:
      - id: s
        data: {type: start, title: S, variables: &vars [{variable: q, type: text-input}]}
      - id: t
        data: {type: template-transform, title: T, template: x, variables: *vars}
    edges: []`),
    );
    expect(sharedObjects(workflow)).toEqual([]);
  });

  it("finds an anchor at the very start of the text and after a flow indicator", () => {
    expect(readYaml("&a [*a]").ok).toBe(false); // recursive: found only if the anchor at offset 0 is seen
    for (const text of ["x: [&a {k: 1}, *a]", "x: {a: &a [1], b: *a}"]) {
      const r = readYaml(text);
      expect(r.ok && r.mayShare, text).toBe(true);
    }
  });

  it("reports sharing only where an alias repeats an object", () => {
    const cases: [string, boolean][] = [
      ["a: &x {k: 1}\nb: *x", true],
      ["a: &x {k: 1}\nb: 2", false], // an anchor nothing repeats
      ["a: &x 1\nb: *x", false], // an alias of a scalar shares nothing mutable
      ["a: R &D\nb: 'Q&A'", false], // prose
      ["a: 1", false],
    ];
    for (const [text, shared] of cases) {
      const r = readYaml(text);
      expect(r.ok && r.mayShare, text).toBe(shared);
    }
  });

  const files = corpusFiles();
  it.skipIf(files.length === 0)("every corpus file, with or without anchors", () => {
    let checked = 0;
    for (const f of files) {
      let wf: unknown;
      try {
        wf = importDify(readFileSync(join(CORPUS_DIR, f), "utf8")).workflow;
      } catch {
        continue; // files the importer refuses are another test's business
      }
      expect(sharedObjects(wf), f).toEqual([]);
      checked++;
    }
    expect(checked).toBeGreaterThan(100);
  });
});
