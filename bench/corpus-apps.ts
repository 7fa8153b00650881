/**
 * How many of the real Dify apps in ../shared/corpus/dify-dsl run end to end (succeeded or
 * partial-succeeded) with the replay model, through the standard service wiring, as `weft run` would.
 *   npx tsx bench/corpus-apps.ts [--json] [--list]
 * Prints the count, the outcomes by typed cause, and with --list every app that does not run.
 */
import { corpusAppPaths, runCorpusApp, startCorpusHarness, summarise, type AppOutcome } from "../test/support/corpus-apps.js";

const args = new Set(process.argv.slice(2));
const h = await startCorpusHarness();
const outcomes: AppOutcome[] = [];
try {
  for (const p of corpusAppPaths()) outcomes.push(await runCorpusApp(h, p));
} finally {
  await h.close();
}
const s = summarise(outcomes);
if (args.has("--json")) {
  process.stdout.write(`${JSON.stringify({ ...s, outcomes }, null, 2)}\n`);
} else {
  process.stdout.write(`corpus apps that run end to end: ${s.ran} / ${s.total}\n`);
  for (const [k, n] of Object.entries(s.counts).sort((a, b) => b[1] - a[1])) process.stdout.write(`  ${String(n).padStart(4)}  ${k}\n`);
  if (args.has("--list")) {
    for (const o of outcomes.filter((x) => !x.outcome.endsWith("succeeded")))
      process.stdout.write(`${o.outcome}\t${o.path}\t${o.nodeId ?? ""}\t${(o.message ?? "").slice(0, 160)}\n`);
  }
}
process.exit(0);
