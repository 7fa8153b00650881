/**
 * Fuzz the model-answer path with hostile answers: `tsx bench/fuzz.ts [count] [seed]`.
 * Prints typed / untyped / slow counts (slow: one answer over 1 s) and the distinct untyped causes.
 * Untyped must be 0: every hostile answer ends in typed diagnostics or a clean workflow.
 */
import fc from "fast-check";
import { hostileAnswer, judgeAnswer, mutatedAnswer } from "../test/support/hostile-answers.js";

const count = Number(process.argv[2] ?? 100_000);
const seed = Number(process.argv[3] ?? 20261203);
const SLOW_MS = 1000;
const BATCH = 1000;
// Half generated from nothing, half real model answers with hostile spots: the latter reach conversion, analysis and export.
const answers = fc.oneof(hostileAnswer, mutatedAnswer());

let typed = 0;
let untyped = 0;
let slow = 0;
let worstMs = 0;
const codes = new Map<string, number>();
const causes = new Map<string, { n: number; example: string }>();
const started = performance.now();
for (let done = 0; done < count; done += BATCH) {
  const batch = fc.sample(answers, { seed: seed + done, numRuns: Math.min(BATCH, count - done) });
  for (const a of batch) {
    const t0 = performance.now();
    const o = judgeAnswer(a);
    const ms = performance.now() - t0;
    worstMs = Math.max(worstMs, ms);
    if (ms > SLOW_MS) slow++;
    if (o.kind === "typed") {
      typed++;
      codes.set(o.code, (codes.get(o.code) ?? 0) + 1);
    } else {
      untyped++;
      const c = causes.get(o.reason) ?? { n: 0, example: a.slice(0, 300) };
      c.n++;
      causes.set(o.reason, c);
    }
  }
}
const secs = (performance.now() - started) / 1000;
for (const [reason, c] of [...causes].sort((a, b) => b[1].n - a[1].n).slice(0, 20))
  console.log(`untyped ×${c.n}: ${reason}\n    e.g. ${c.example}`);
console.log(
  `outcomes: ${[...codes]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 12)
    .map(([c, n]) => `${c} ${n}`)
    .join(", ")}`,
);
console.log(`fuzz: ${count} answers, seed ${seed}, ${secs.toFixed(1)} s, worst ${worstMs.toFixed(0)} ms`);
console.log(`typed ${typed} / untyped ${untyped} / slow ${slow}`);
process.exitCode = untyped > 0 || slow > 0 ? 1 : 0;
