import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { readYaml } from "../../src/dsl/dify/index.js";
import { corpusFiles, readCorpus } from "./corpus.js";

/**
 * PyYAML itself is the oracle: Dify reads DSL files with `yaml.safe_load`, so Weft's reader must build the same
 * values from the same text — every real file in the corpus, and the corners of the YAML 1.1 dialect where readers
 * disagree. Needs python3 with PyYAML (Debian: python3-yaml; CI installs it).
 */

const ORACLE = fileURLToPath(new URL("../support/pyyaml.py", import.meta.url));

type Answer = { value: unknown } | { error: string };

function pyyaml(texts: string[]): Answer[] {
  const out = execFileSync("python3", [ORACLE], { input: JSON.stringify(texts), maxBuffer: 1 << 28 });
  return JSON.parse(out.toString("utf8")) as Answer[];
}

/** Weft's value in the oracle's spelling (JSON, non-finite floats tagged). */
function spelled(v: unknown): unknown {
  if (typeof v === "number" && !Number.isFinite(v)) {
    return { $float: Number.isNaN(v) ? "nan" : v > 0 ? "inf" : "-inf" };
  }
  if (Array.isArray(v)) return v.map(spelled);
  if (typeof v === "object" && v !== null) {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, spelled(x)]));
  }
  return v;
}

function weft(text: string): Answer {
  const r = readYaml(text);
  return r.ok ? { value: spelled(r.value) } : { error: r.error.message };
}

/** Places where YAML readers disagree with one another; each is a whole document. */
const DIALECT = [
  "a: y\nb: yes\nc: 1e5\nd: 1.0e+5\ne: 09\nf: 017\ng: 0x1F\nh: 1:20\ni: 2024-01-02\nj: .inf\nk: ~\nl: Off\nm: 1_000\n",
  "n: N\no: on\np: -.INF\nq: .NaN\nr: 0b101\ns: +12\nt: -0\nu: 1.5e-3\nv: 6.8523015e+5\nw: 190:20:30.15\nx: 0o17\n",
  "t1: 2001-12-14t21:59:43.10-05:00\nt2: 2001-12-14 21:59:43.10 -5\nt3: 2002-12-14\nt4: 2002-1-4\n",
  // Not `1:` beside `true:` — in Python True == 1, so they are one key there, an accident of dicts, not of YAML.
  "~: null key\ntrue: bool key\n2: int key\n1.5: float key\nnull: again\n",
  "dup: 1\ndup: 2\nother: x\n",
  "base: &b {x: 1, y: 2}\nm:\n  <<: *b\n  y: 3\nlist:\n  <<: [*b, {z: 4}]\nrefs: [*b, *b]\n",
  "q1: \"tab\\tnew\\nline \\x41 \\u263A \\N \\_\"\nq2: 'it''s'\nq3: \"a\\\n  b\"\n",
  "lit: |\n  keep\n   indent\n\n  end\nfold: >-\n  folded\n  text\n\n  para\nkeep: |+\n  x\n\nstrip: |-\n  y\n",
  "plain: multi\n  line\n\n  plain\nkey with spaces: v\n'quoted key': v\n\"dq\": v\n",
  "flow: {a: [1, 2, {b: c}], 'd': \"e\"}\nempty_map: {}\nempty_seq: []\nempty:\nexplicit_null: !!null ''\n",
  "tags: [!!str 1, !!int '7', !!float '1.5', !!bool 'yes', !!str yes]\n",
  "- top\n- level: seq\n-\n  - nested\n",
  "%YAML 1.1\n---\na: 1\n...\n",
  "a: [unclosed\n",
  "a: *nope\n",
  "- a\n- b\n---\n- c\n",
  "cmd: !!python/object/apply:os.system [echo hi]\n",
  "local: !custom thing\n",
];

describe("YAML reader against PyYAML", () => {
  it("reads every corpus file to exactly the values PyYAML builds", { timeout: 60_000 }, () => {
    const files = corpusFiles();
    const texts = files.map(readCorpus);
    const oracle = pyyaml(texts);
    const differ: string[] = [];
    texts.forEach((t, i) => {
      try {
        expect(weft(t)).toEqual(oracle[i]);
      } catch {
        differ.push(files[i] as string);
      }
    });
    expect(differ).toEqual([]);
    expect(files.length).toBeGreaterThan(100);
  });

  it.each(DIALECT.map((d, i) => [i, d] as const))("dialect case %i reads as PyYAML reads it", (_i, text) => {
    const [oracle] = pyyaml([text]);
    const mine = weft(text);
    if (oracle && "error" in oracle) expect(mine).toHaveProperty("error");
    else expect(mine).toEqual(oracle);
  });
});
