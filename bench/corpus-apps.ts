/**
 * How many of the real Dify apps in ../shared/corpus/dify-dsl run end to end (succeeded or
 * partial-succeeded) with the replay model, through the standard service wiring, as `weft run` would.
 *   npx tsx bench/corpus-apps.ts [--configured] [--allow-warnings] [--json] [--list]
 * Without --configured: only what Weft serves offline (built-in tools, no knowledge bases) — on the code
 * before issue 14 this printed 53 / 163. With --configured: the tools and knowledge bases a user would
 * configure (test/support/corpus-tools.ts: tools.map onto a stdio MCP server, custom API tools onto an
 * OpenAPI server on 127.0.0.2, workflow tools onto a workflow file, every dataset id a knowledge base).
 * --allow-warnings runs what Dify would still run, as `weft run --allow-warnings`. Prints the count, the outcomes by typed cause, and with --list every app that does not run.
 * --compare BEFORE.json [--cause CODE]: BEFORE is the --json output of an earlier run (e.g. on main); only the
 * apps that failed there with CODE (default sandbox.forbidden) are run, and the before/after table by cause is
 * printed (issue 35 item 10: the apps Python's module policy refused).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { StoreKnowledge } from "../src/runtime/services.js";
import {
  type AppOutcome,
  CORPUS_ROOT,
  corpusAppPaths,
  runCorpusApp,
  startCorpusHarness,
  summarise,
} from "../test/support/corpus-apps.js";
import { type CorpusTools, corpusToolConfig, createCorpusKnowledge } from "../test/support/corpus-tools.js";

const argv = process.argv.slice(2);
const args = new Set(argv);
const configured = args.has("--configured");
const flagValue = (flag: string) => (argv.includes(flag) ? argv[argv.indexOf(flag) + 1] : undefined);
const compareFile = flagValue("--compare");
const cause = `failed:${flagValue("--cause") ?? "sandbox.forbidden"}`;
const baseline = compareFile
  ? new Map(
      (JSON.parse(readFileSync(compareFile, "utf8")) as { outcomes: AppOutcome[] }).outcomes.map((o) => [o.path, o]),
    )
  : undefined;
const paths = corpusAppPaths().filter((p) => !baseline || baseline.get(p)?.outcome === cause);
let tools: CorpusTools | undefined;
const h = await startCorpusHarness(async (cfg, dir) => {
  if (!configured) return;
  tools = await corpusToolConfig(
    dir,
    paths.map((p) => join(CORPUS_ROOT, p)),
  );
  Object.assign(cfg, tools.config);
});
const outcomes: AppOutcome[] = [];
try {
  if (tools) await createCorpusKnowledge(await (h.services.knowledge as StoreKnowledge).bases(), tools.knowledgeIds);
  for (const p of paths) outcomes.push(await runCorpusApp(h, p, { allowWarnings: args.has("--allow-warnings") }));
} finally {
  await h.close();
  await tools?.openapi.close();
}
const s = summarise(outcomes);
if (baseline) {
  process.stdout.write(`apps that failed with ${cause} before: ${outcomes.length}\n\nbefore → after, by cause:\n`);
  const pairs = new Map<string, number>();
  for (const o of outcomes) {
    const key = `${cause}: ${baseline
      .get(o.path)
      ?.message?.replace(/^code node \S+: /, "")
      .replace(/ is not (available|allowed).*/, "")} → ${o.outcome}`;
    pairs.set(key, (pairs.get(key) ?? 0) + 1);
  }
  for (const [k, n] of [...pairs].sort((a, b) => b[1] - a[1]))
    process.stdout.write(`  ${String(n).padStart(3)}  ${k}\n`);
  process.stdout.write("\nafter, by cause:\n");
  for (const [k, n] of Object.entries(s.counts).sort((a, b) => b[1] - a[1]))
    process.stdout.write(`  ${String(n).padStart(3)}  ${k}\n`);
  process.stdout.write("\nper app:\n");
  for (const o of outcomes)
    process.stdout.write(
      `${o.outcome}\t${o.path}\t${(o.message ?? "").replace(/^code node \S+: /, "").slice(0, 200)}\n`,
    );
} else if (args.has("--json")) {
  process.stdout.write(`${JSON.stringify({ configured, ...s, outcomes }, null, 2)}\n`);
} else {
  process.stdout.write(
    `corpus apps that run end to end${configured ? " (tools and knowledge bases configured)" : ""}${args.has("--allow-warnings") ? " (--allow-warnings)" : ""}: ${s.ran} / ${s.total}\n`,
  );
  for (const [k, n] of Object.entries(s.counts).sort((a, b) => b[1] - a[1]))
    process.stdout.write(`  ${String(n).padStart(4)}  ${k}\n`);
  if (args.has("--list")) {
    for (const o of outcomes.filter((x) => !x.outcome.endsWith("succeeded")))
      process.stdout.write(`${o.outcome}\t${o.path}\t${o.nodeId ?? ""}\t${(o.message ?? "").slice(0, 160)}\n`);
  }
}
process.exit(0);
