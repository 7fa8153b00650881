// The import graph of a source tree, read with the TypeScript parser, its circles (strongly connected
// components) and its imports against a layering. Used by the tests that keep src/ free of import circles and
// of upward imports between its folders.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { cyclicComponents } from "../../src/util/scc.js";

export type ImportKind = "value" | "type" | "dynamic";

export interface ImportEdge {
  to: string;
  kind: ImportKind;
}

/** The TypeScript files under `dir` (declaration files left out). */
export function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return sourceFiles(p);
    return /\.tsx?$/.test(name) && !name.endsWith(".d.ts") ? [p] : [];
  });
}

/** `./x.js` in an import names `./x.ts` (or `./x/index.ts`) on disk. */
function resolveSpecifier(from: string, spec: string, known: Set<string>): string | undefined {
  if (!spec.startsWith(".")) return undefined;
  const base = resolve(dirname(from), spec);
  const candidates = [
    base.replace(/\.js$/, ".ts"),
    base.replace(/\.js$/, ".tsx"),
    base,
    `${base}.ts`,
    join(base, "index.ts"),
  ];
  return candidates.find((c) => known.has(c));
}

function importsOf(file: string): Array<{ spec: string; kind: ImportKind }> {
  const sf = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const out: Array<{ spec: string; kind: ImportKind }> = [];
  const visit = (n: ts.Node) => {
    if (ts.isImportDeclaration(n) && ts.isStringLiteral(n.moduleSpecifier)) {
      const clause = n.importClause;
      const typeOnly =
        !!clause &&
        (clause.isTypeOnly ||
          (!clause.name &&
            !!clause.namedBindings &&
            ts.isNamedImports(clause.namedBindings) &&
            clause.namedBindings.elements.length > 0 &&
            clause.namedBindings.elements.every((e) => e.isTypeOnly)));
      out.push({ spec: n.moduleSpecifier.text, kind: typeOnly ? "type" : "value" });
    } else if (ts.isExportDeclaration(n) && n.moduleSpecifier && ts.isStringLiteral(n.moduleSpecifier)) {
      out.push({ spec: n.moduleSpecifier.text, kind: n.isTypeOnly ? "type" : "value" });
    } else if (
      ts.isCallExpression(n) &&
      n.expression.kind === ts.SyntaxKind.ImportKeyword &&
      n.arguments[0] &&
      ts.isStringLiteral(n.arguments[0])
    ) {
      out.push({ spec: n.arguments[0].text, kind: "dynamic" });
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

/** Every file under `dir` with the files of `dir` it imports; paths relative to `dir`. */
export function importGraph(dir: string): Map<string, ImportEdge[]> {
  const files = sourceFiles(resolve(dir));
  const known = new Set(files);
  const graph = new Map<string, ImportEdge[]>();
  for (const f of files) {
    const edges: ImportEdge[] = [];
    for (const { spec, kind } of importsOf(f)) {
      const to = resolveSpecifier(f, spec, known);
      if (to) edges.push({ to: relative(dir, to), kind });
    }
    graph.set(relative(dir, f), edges);
  }
  return graph;
}

/** Circles of the graph restricted to `kinds`: each a sorted list of files that all reach each other. */
export function importCircles(graph: Map<string, ImportEdge[]>, kinds: ImportKind[]): string[][] {
  const next = (v: string) => (graph.get(v) ?? []).filter((e) => kinds.includes(e.kind)).map((e) => e.to);
  return cyclicComponents([...graph.keys()].sort(), next);
}

/** The top-level folder a file (relative to the tree's root) is in; "" for a file at the root. */
export function topFolder(file: string): string {
  const i = file.indexOf("/");
  return i < 0 ? "" : file.slice(0, i);
}

/**
 * The imports, of every kind, that go against `layers` (lowest first, each a list of top-level folders): a file
 * may import from its own folder or from a folder of a lower layer, never from a sibling of its layer, a higher
 * layer, or a folder the table leaves out. Each as `from → to (kind)`, sorted.
 */
export function upwardImports(graph: Map<string, ImportEdge[]>, layers: readonly (readonly string[])[]): string[] {
  const rank = new Map(layers.flatMap((layer, i) => layer.map((folder) => [folder, i] as const)));
  const out: string[] = [];
  for (const [file, edges] of graph) {
    const from = topFolder(file);
    for (const e of edges) {
      const to = topFolder(e.to);
      if (to !== from && (rank.get(to) ?? Infinity) >= (rank.get(from) ?? Infinity))
        out.push(`${file} → ${e.to} (${e.kind})`);
    }
  }
  return out.sort();
}

/** The package name of a bare specifier (`@scope/pkg/sub` → `@scope/pkg`), undefined for relative and `node:` ones. */
function packageOf(spec: string): string | undefined {
  if (spec.startsWith(".") || spec.startsWith("node:")) return undefined;
  const parts = spec.split("/");
  return spec.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
}

/** The closure of `entry`'s static value imports under `dir`: each file reached, and each package with a chain to it. */
function staticClosure(dir: string, entry: string): { files: Map<string, string[]>; packages: Map<string, string[]> } {
  const root = resolve(dir);
  const known = new Set(sourceFiles(root));
  const start = resolve(root, entry);
  const parent = new Map<string, string | undefined>([[start, undefined]]);
  const packages = new Map<string, string[]>();
  const chain = (f: string) => {
    const out: string[] = [];
    for (let c: string | undefined = f; c; c = parent.get(c)) out.unshift(relative(root, c));
    return out;
  };
  for (const queue = [start]; queue.length > 0; ) {
    const f = queue.shift()!;
    for (const { spec, kind } of importsOf(f)) {
      if (kind !== "value") continue;
      const pkg = packageOf(spec);
      if (pkg !== undefined) {
        if (!packages.has(pkg)) packages.set(pkg, chain(f));
        continue;
      }
      const to = resolveSpecifier(f, spec, known);
      if (to && !parent.has(to)) {
        parent.set(to, f);
        queue.push(to);
      }
    }
  }
  const files = new Map([...parent.keys()].map((f) => [relative(root, f), chain(f)] as const));
  return { files, packages };
}

/**
 * The packages loaded when `entry` (a file under `dir`) is imported: the closure of its static value imports,
 * each package with the chain of files that first reaches it (to say where a lazy import is missing).
 */
export function staticPackages(dir: string, entry: string): Map<string, string[]> {
  return staticClosure(dir, entry).packages;
}

/** The files under `dir` (relative to it) loaded when `entry` is imported, each with the chain that reaches it. */
export function staticFiles(dir: string, entry: string): Map<string, string[]> {
  return staticClosure(dir, entry).files;
}
