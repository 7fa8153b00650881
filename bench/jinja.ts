/**
 * What rendering Jinja2 off the main thread costs. For three template sizes, the median wall time
 * of one render by: the library's plain renderer in process (the baseline, what Weft did before
 * issue 16), the budgeted renderer in process (the metering alone), and `renderJinja` (budgeted, in a
 * worker thread: the round trip and the structured clone of the variables included). Ratios are
 * against the baseline, measured in the same run.
 *
 *   npx tsx bench/jinja.ts [renders]
 */
import { Template } from "@huggingface/jinja";
import { closeJinjaWorkers, renderBounded, renderJinja } from "../src/jinja/index.js";

const N = Number(process.argv[2] ?? 200);

const CASES: Array<{ name: string; source: string; vars: Record<string, unknown> }> = [
  { name: "one variable", source: "Hello {{ name }}!", vars: { name: "Ada" } },
  {
    name: "loop over 100 rows",
    source: "{% for r in rows %}{{ loop.index }}. {{ r.title | upper }} ({{ r.tags | join(', ') }})\n{% endfor %}",
    vars: { rows: Array.from({ length: 100 }, (_, i) => ({ title: `item ${i}`, tags: ["a", "b", "c"] })) },
  },
  {
    name: "10,000 rows, 1 MB input",
    source: "{% for r in rows %}{% if r.n % 2 == 0 %}{{ r.n }},{% endif %}{% endfor %}",
    vars: { rows: Array.from({ length: 10_000 }, (_, n) => ({ n, pad: "x".repeat(100) })) },
  },
];

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

async function time(f: () => unknown, runs: number): Promise<number> {
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await f();
    out.push(performance.now() - t0);
  }
  return median(out);
}

const rows: Array<Record<string, string>> = [];
for (const c of CASES) {
  const runs = c.name.startsWith("10,000") ? Math.max(10, Math.floor(N / 10)) : N;
  const plain = () => new Template(c.source).render(c.vars);
  const bounded = () => renderBounded(c.source, c.vars);
  const worker = () => renderJinja(c.source, c.vars);
  if (plain() !== bounded() || plain() !== (await worker())) throw new Error(`${c.name}: renderers disagree`);
  // Warm-up: JIT and the worker threads.
  await time(plain, 20);
  await time(bounded, 20);
  await time(worker, 20);
  const base = await time(plain, runs);
  const b = await time(bounded, runs);
  const w = await time(worker, runs);
  rows.push({
    case: c.name,
    "library ms": base.toFixed(3),
    "budgeted ms": b.toFixed(3),
    "worker ms": w.toFixed(3),
    "budgeted/library": (b / base).toFixed(2),
    "worker/library": (w / base).toFixed(2),
  });
}
console.table(rows);
await closeJinjaWorkers();
