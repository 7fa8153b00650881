import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { analyse } from "../../src/analysis/index.js";
import { importDify } from "../../src/dsl/dify/index.js";
import { nodeCatalogue } from "../../src/nodes/index.js";
import { corpusPath } from "../support/corpus.js";

const ROOT = corpusPath("dify-dsl");
const files = fs
  .readFileSync(path.join(ROOT, "MANIFEST.tsv"), "utf8")
  .trim()
  .split("\n")
  .slice(1)
  .map((l) => l.split("\t")[0]!);

function load(file: string) {
  return importDify(fs.readFileSync(path.join(ROOT, file), "utf8"), { nameHint: file }).workflow;
}

describe("real Dify files", () => {
  it("every corpus file analyses without throwing", { timeout: 120_000 }, () => {
    expect(files.length).toBeGreaterThan(100);
    let analysed = 0;
    for (const f of files) {
      let w: ReturnType<typeof load>;
      try {
        w = load(f);
      } catch {
        continue; // import failures belong to the importer's tests
      }
      const r = analyse(w, nodeCatalogue);
      expect(Array.isArray(r.diagnostics)).toBe(true);
      expect(r.burden.nodes.length).toBe(w.nodes.length - countDuplicates(w.nodes.map((x) => x.id)));
      analysed++;
    }
    expect(analysed).toBeGreaterThan(100);
  });

  it("finds the copy-paste bug in a real search workflow (a parser reading another branch's result)", () => {
    const f = files.find((x) => x.includes("74-dify"));
    expect(f).toBeDefined();
    const r = analyse(load(f!), nodeCatalogue);
    const d = r.diagnostics.find((x) => x.code === "ref.not_available" && x.nodeId === "17546268421970");
    expect(d?.field).toBe("variables[0].value_selector");
    expect(d?.message).toMatch(/17546230718560/);
  });

  it("finds a fail-branch handler that reads the failed request's body", () => {
    const f = files.find((x) => x.includes("error-handling"));
    expect(f).toBeDefined();
    const r = analyse(load(f!), nodeCatalogue);
    const d = r.diagnostics.filter((x) => x.code === "ref.not_available" && x.nodeId === "1718003000004");
    expect(d.map((x) => x.severity)).toEqual(["error", "error"]);
    expect(d[0]!.message).toMatch(/fail-branch of "1718003000002"/);
  });

  it("finds the selector to a start input that was deleted", () => {
    const f = files.find((x) => x.includes("Gordon"));
    expect(f).toBeDefined();
    const r = analyse(load(f!), nodeCatalogue);
    expect(r.diagnostics.some((d) => d.code === "ref.missing_output" && d.nodeId === "1741670198264")).toBe(true);
    expect(r.diagnostics.some((d) => d.code === "template.unresolved" && d.nodeId === "1741660778252")).toBe(true);
  });
});

function countDuplicates(ids: string[]): number {
  return ids.length - new Set(ids).size;
}
