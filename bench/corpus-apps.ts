/**
 * How many of the real Dify apps in ../shared/corpus/dify-dsl run end to end (succeeded or
 * partial-succeeded) with the replay model, through the standard service wiring, as `weft run` would.
 *   npx tsx bench/corpus-apps.ts [--configured] [--allow-warnings] [--json] [--list]
 * Without --configured: only what Weft serves offline (built-in tools, no knowledge bases) — on the code
 * before issue 14 this printed 53 / 163. With --configured: the tools and knowledge bases a user would
 * configure (test/support/corpus-tools.ts: tools.map onto a stdio MCP server, custom API tools onto an
 * OpenAPI server on 127.0.0.2, workflow tools onto a workflow file, every dataset id a knowledge base).
 * --allow-warnings runs what Dify would still run, as `weft run --allow-warnings`. Prints the count, the outcomes by typed cause, and with --list every app that does not run.
 */
import { join } from "node:path";
import type { KnowledgeBases } from "../src/knowledge/service.js";
import { CORPUS_ROOT, corpusAppPaths, runCorpusApp, startCorpusHarness, summarise, type AppOutcome } from "../test/support/corpus-apps.js";
import { type CorpusTools, corpusToolConfig, createCorpusKnowledge } from "../test/support/corpus-tools.js";

const args = new Set(process.argv.slice(2));
const configured = args.has("--configured");
const paths = corpusAppPaths();
let tools: CorpusTools | undefined;
const h = await startCorpusHarness(async (cfg, dir) => {
  if (!configured) return;
  tools = await corpusToolConfig(dir, paths.map((p) => join(CORPUS_ROOT, p)));
  Object.assign(cfg, tools.config);
});
const outcomes: AppOutcome[] = [];
try {
  if (tools) await createCorpusKnowledge(h.services.knowledge as KnowledgeBases, tools.knowledgeIds);
  for (const p of paths) outcomes.push(await runCorpusApp(h, p, { allowWarnings: args.has("--allow-warnings") }));
} finally {
  await h.close();
  await tools?.openapi.close();
}
const s = summarise(outcomes);
if (args.has("--json")) {
  process.stdout.write(`${JSON.stringify({ configured, ...s, outcomes }, null, 2)}\n`);
} else {
  process.stdout.write(`corpus apps that run end to end${configured ? " (tools and knowledge bases configured)" : ""}${args.has("--allow-warnings") ? " (--allow-warnings)" : ""}: ${s.ran} / ${s.total}\n`);
  for (const [k, n] of Object.entries(s.counts).sort((a, b) => b[1] - a[1])) process.stdout.write(`  ${String(n).padStart(4)}  ${k}\n`);
  if (args.has("--list")) {
    for (const o of outcomes.filter((x) => !x.outcome.endsWith("succeeded")))
      process.stdout.write(`${o.outcome}\t${o.path}\t${o.nodeId ?? ""}\t${(o.message ?? "").slice(0, 160)}\n`);
  }
}
process.exit(0);
