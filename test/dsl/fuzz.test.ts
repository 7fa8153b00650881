import { statSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { exportDify, importDify, readYaml, writeYaml } from "../../src/dsl/dify/index.js";
import { ImportError } from "../../src/ir/errors.js";
import { asExported } from "../support/dsl-version.js";
import { CORPUS_DIR, corpusFiles, readCorpus } from "./corpus.js";

/**
 * Property: whatever is done to a real file, the importer either succeeds or throws an ImportError — never a
 * TypeError or a crash. When it succeeds, the result must still round-trip losslessly.
 */

const all = corpusFiles();
const bySize = [...all].sort((a, b) => statSync(join(CORPUS_DIR, a)).size - statSync(join(CORPUS_DIR, b)).size);
const pick = (re: RegExp): string[] => all.filter((f) => re.test(readCorpus(f))).slice(0, 1);
// Small files keep the run fast; add ones with containers, notes and legacy iterations for coverage.
const sample = [
  ...new Set([
    ...bySize.slice(0, 8),
    ...pick(/custom-loop-start/),
    ...pick(/custom-iteration-start/),
    ...pick(/custom-note/),
    ...pick(/isIterationStart: true/),
  ]),
];
const texts = sample.map(readCorpus);
const docs = texts.map((t) => {
  const r = readYaml(t);
  if (!r.ok) throw new Error("corpus file does not parse");
  return r.value;
});

type Path = (string | number)[];

function paths(v: unknown, prefix: Path = [], out: Path[] = []): Path[] {
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) paths(v[i], [...prefix, i], out);
  } else if (typeof v === "object" && v !== null) {
    for (const [k, x] of Object.entries(v)) paths(x, [...prefix, k], out);
  }
  if (prefix.length > 0) out.push(prefix);
  return out;
}

type Op = { kind: "delete" | "replace"; at: number; value: unknown };

function apply(doc: unknown, ops: Op[]): unknown {
  const root = structuredClone(doc);
  for (const op of ops) {
    const ps = paths(root);
    if (ps.length === 0) break;
    // Bias towards the graph: that is where the importer does most of its work.
    const graphPs = ps.filter((p) => p[0] === "workflow" && p[1] === "graph");
    const pool = op.at % 4 === 0 || graphPs.length === 0 ? ps : graphPs;
    const p = pool[op.at % pool.length] as Path;
    let parent: unknown = root;
    for (const k of p.slice(0, -1)) parent = (parent as Record<string | number, unknown>)[k];
    const last = p[p.length - 1] as string | number;
    if (Array.isArray(parent)) {
      if (op.kind === "delete") parent.splice(last as number, 1);
      else parent[last as number] = op.value;
    } else if (typeof parent === "object" && parent !== null) {
      if (op.kind === "delete") delete (parent as Record<string, unknown>)[last];
      else
        Object.defineProperty(parent, last, { value: op.value, enumerable: true, writable: true, configurable: true });
    }
  }
  return root;
}

const special = fc.constantFrom(
  "custom-note",
  "custom-iteration-start",
  "iteration",
  "loop",
  "iteration-start",
  "source",
  "fail-branch",
  "",
  "=",
  "y",
  "0.4",
  "0.4.0",
  "9.0.0",
  "chat",
  "advanced-chat",
  "1716909112104",
  "__proto__",
);
const value = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double(),
  fc.string({ maxLength: 8 }),
  special,
  fc.array(fc.oneof(special, fc.integer(), fc.constant(null)), { maxLength: 3 }),
  fc.dictionary(fc.oneof(special, fc.string({ maxLength: 4 })), fc.oneof(special, fc.integer(), fc.constant(null)), {
    maxKeys: 3,
  }),
);
const op = fc.record({ kind: fc.constantFrom("delete" as const, "replace" as const), at: fc.nat(), value });

const outcomes = { imported: 0, rejected: 0 };

function check(text: string): void {
  let result: ReturnType<typeof importDify>;
  try {
    result = importDify(text);
  } catch (e) {
    if (!(e instanceof ImportError)) throw e;
    expect(typeof e.code).toBe("string");
    expect(e.message.length).toBeGreaterThan(0);
    outcomes.rejected++;
    return;
  }
  outcomes.imported++;
  const again = importDify(exportDify(result.workflow));
  expect(again.workflow).toEqual(asExported(result.workflow));
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
}

describe("importer under mutation", () => {
  it(`survives structural mutations of ${sample.length} corpus files`, { timeout: 180_000 }, () => {
    outcomes.imported = 0;
    outcomes.rejected = 0;
    fc.assert(
      fc.property(fc.nat(), fc.array(op, { minLength: 1, maxLength: 4 }), (i, ops) => {
        check(writeYaml(apply(docs[i % docs.length], ops)));
      }),
      { numRuns: 300 },
    );
    // Both outcomes must occur, or the property says nothing.
    expect(outcomes.imported).toBeGreaterThan(20);
    expect(outcomes.rejected).toBeGreaterThan(5);
    console.log(
      `structural mutations: ${outcomes.imported} imported and round-tripped, ${outcomes.rejected} rejected with ImportError`,
    );
  });

  it("survives text mutations: truncation, garbage, deleted ranges", { timeout: 180_000 }, () => {
    const garbage = fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.constantFrom(
        ": ",
        "- ",
        "\t",
        "{",
        "]",
        "&a ",
        "*a",
        "!!binary ",
        "<<: *x",
        "\n  x",
        "'",
        '"',
        "%YAML 1.1\n",
        "---\n",
        "\u0000",
      ),
    );
    const mutation = fc.oneof(
      fc.record({ kind: fc.constant("truncate" as const), at: fc.nat() }),
      fc.record({ kind: fc.constant("insert" as const), at: fc.nat(), text: garbage }),
      fc.record({ kind: fc.constant("cut" as const), at: fc.nat(), len: fc.integer({ min: 1, max: 200 }) }),
    );
    fc.assert(
      fc.property(fc.nat(), fc.array(mutation, { minLength: 1, maxLength: 3 }), (i, ms) => {
        let t = texts[i % texts.length] as string;
        for (const m of ms) {
          const at = m.at % (t.length + 1);
          if (m.kind === "truncate") t = t.slice(0, at);
          else if (m.kind === "insert") t = t.slice(0, at) + m.text + t.slice(at);
          else t = t.slice(0, at) + t.slice(at + m.len);
        }
        check(t);
      }),
      { numRuns: 300 },
    );
  });

  it("survives arbitrary values at the top of the document", { timeout: 60_000 }, () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        check(writeYaml(v));
        check(JSON.stringify(v) ?? "null");
      }),
      { numRuns: 200 },
    );
  });
});
