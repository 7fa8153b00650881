/**
 * Dify import cost on the real corpus: CPU ms per MB for reading the YAML and for the whole import, and for the
 * largest files the ratio of import time to analysis time.
 *
 *   npx tsx bench/import.ts [BASELINE_CHECKOUT]
 *
 * With a baseline (another checkout, node_modules linked, e.g. `git worktree add /tmp/base main`), both are loaded
 * into this process and alternated round by round on the same texts; the last lines are ratios this/baseline
 * (< 1: this checkout is faster). Times are process CPU (user + system), steadier than wall time on a shared box.
 * `js-yaml` is the floor: that library's plain `load` of the same texts (default schema, nothing checked), and
 * `import/js-yaml` how far the whole import is above it.
 */
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { CORPUS_DIR, corpusFiles } from "../test/dsl/corpus.js";

const ROUNDS = Number(process.env.ROUNDS ?? 7);
const LARGEST = 3;
const baseDir = process.argv[2] ? resolve(process.argv[2]) : undefined;
if (baseDir && !existsSync(join(baseDir, "src/dsl/dify/index.ts"))) {
  process.stderr.write("usage: npx tsx bench/import.ts [BASELINE_CHECKOUT (a directory with src/dsl/dify/index.ts)]\n");
  process.exit(2);
}

interface Importer {
  name: string;
  bareYaml: (t: string) => unknown;
  readYaml: (t: string) => { ok: boolean };
  importDify: (t: string) => { workflow: unknown };
  analyse: (w: unknown) => unknown;
}

async function load(name: string, root: string): Promise<Importer> {
  const mod = (p: string) => import(pathToFileURL(join(root, p)).href);
  const dify = await mod("src/dsl/dify/index.ts");
  const { analyse } = await mod("src/analysis/index.ts");
  const bare = createRequire(join(root, "package.json"))("js-yaml") as { load: (t: string) => unknown };
  return { name, bareYaml: (t) => bare.load(t), readYaml: dify.readYaml, importDify: dify.importDify, analyse };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const cpu = (f: () => void): number => {
  const c = process.cpuUsage();
  f();
  const d = process.cpuUsage(c);
  return (d.user + d.system) / 1000;
};

const files = corpusFiles();
const texts = files.map((f) => readFileSync(join(CORPUS_DIR, f), "utf8"));
const mb = texts.reduce((a, t) => a + Buffer.byteLength(t), 0) / 1e6;
const largest = texts
  .map((t, i) => ({ t, f: files[i] as string }))
  .sort((a, b) => b.t.length - a.t.length)
  .slice(0, LARGEST);

const importers = [await load("this", resolve("."))];
if (baseDir) importers.push(await load("baseline", baseDir));

type Sample = { bare: number[]; yaml: number[]; imp: number[]; big: Map<string, { imp: number[]; an: number[] }> };
const fresh = (): Sample => ({ bare: [], yaml: [], imp: [], big: new Map() });
const samples = new Map<string, Sample>(importers.map((x) => [x.name, fresh()]));

function round(x: Importer): void {
  const s = samples.get(x.name) as Sample;
  s.bare.push(
    cpu(() => {
      for (const t of texts) x.bareYaml(t);
    }) / mb,
  );
  s.yaml.push(
    cpu(() => {
      for (const t of texts) x.readYaml(t);
    }) / mb,
  );
  s.imp.push(
    cpu(() => {
      for (const t of texts) x.importDify(t);
    }) / mb,
  );
  for (const { t, f } of largest) {
    const row = s.big.get(f) ?? { imp: [], an: [] };
    let wf: unknown;
    row.imp.push(cpu(() => (wf = x.importDify(t).workflow)));
    row.an.push(cpu(() => x.analyse(wf)));
    s.big.set(f, row);
  }
}

for (const x of importers) round(x); // warm-up: JIT and lazy loading, not measured
for (const s of samples.values()) Object.assign(s, fresh());
for (let r = 0; r < ROUNDS; r++) for (const x of importers) round(x);

console.log(`corpus: ${files.length} files, ${mb.toFixed(2)} MB; median of ${ROUNDS} rounds, CPU time`);
const result = new Map<string, { yaml: number; imp: number; bare: number }>();
for (const x of importers) {
  const s = samples.get(x.name) as Sample;
  const bare = median(s.bare);
  const yaml = median(s.yaml);
  const imp = median(s.imp);
  // Each round's import and js-yaml are measured back to back: the median of the rounds' own ratios is steadier
  // on a shared machine than the ratio of two medians taken over different moments.
  const paired = median(s.imp.map((x, i) => x / (s.bare[i] as number)));
  result.set(x.name, { yaml, imp, bare });
  console.log(
    `${x.name.padEnd(8)} js-yaml ${bare.toFixed(0).padStart(5)} ms/MB   readYaml ${yaml.toFixed(0).padStart(5)} ms/MB   importDify ${imp.toFixed(0).padStart(5)} ms/MB   import/js-yaml ${(imp / bare).toFixed(2)}× (median of the rounds' ratios ${paired.toFixed(2)}×)`,
  );
  for (const [f, row] of s.big) {
    const i = median(row.imp);
    const a = median(row.an);
    console.log(
      `         ${f}: import ${i.toFixed(1)} ms, analyse ${a.toFixed(1)} ms, import/analyse ${(i / a).toFixed(1)}×`,
    );
  }
}
const mine = result.get("this");
const base = result.get("baseline");
if (mine && base) {
  console.log(`readYaml this/baseline: ${(mine.yaml / base.yaml).toFixed(3)}`);
  console.log(`importDify this/baseline: ${(mine.imp / base.imp).toFixed(3)}`);
}
