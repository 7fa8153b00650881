/**
 * Knowledge-base retrieval quality on a labelled set written by others: ToolBench / StableToolBench queries
 * (../shared/corpus/toolbench), each labelled with its "relevant APIs". Every API of the queries' api_lists
 * becomes one document of a knowledge base (its tool, name, category, description and parameters, as
 * Markdown, added through `weft kb add`'s path); each query is searched and recall@k is the share of its
 * relevant APIs among the top k. Baseline in the same run: ranking by the count of query words a document
 * shares (no IDF, no length normalisation), over the same words.
 *
 * Beside BM25 (FTS5), in the same run: vector search, hybrid (Dify's weighted_score, vector weight 0.7) and
 * hybrid + rerank (Dify's reranking_model through the /rerank HTTP API). No local embedding or rerank model
 * is available here, so the embeddings are the loopback replay model server's deterministic ones (each word
 * hashed into one of 256 dimensions, test/support/hashed-embeddings.ts) and the rerank scores come from a
 * loopback /rerank server scoring by IDF-weighted query-word coverage (test/support/rerank-server.ts): the
 * numbers measure Weft's retrieval paths over those stand-ins, not what a neural model would reach.
 *   npx tsx bench/kb-recall.ts [--json]
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { KnowledgeConfigSchema } from "../src/knowledge/config.js";
import { KnowledgeBases, type SearchMode } from "../src/knowledge/service.js";
import { createLlmService } from "../src/llm/index.js";
import { indexWords } from "../src/store/knowledge.js";
import { openStores } from "../src/store/open.js";
import { TextDocumentService } from "../src/tools/documents.js";
import { corpusPath } from "../test/support/corpus.js";
import { serveHashedEmbeddings } from "../test/support/hashed-embeddings.js";
import { startReplayServer } from "../test/support/replay-server.js";
import { lexicalRerank, startRerankServer } from "../test/support/rerank-server.js";

const EMBED_DIM = 256;

type Api = {
  category_name?: string;
  tool_name: string;
  api_name: string;
  api_description?: string;
  required_parameters?: any[];
  optional_parameters?: any[];
};
type Query = { query: string; query_id: unknown; api_list: Api[]; "relevant APIs": Array<[string, string]> };

function jsonFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? jsonFiles(p) : n.endsWith(".json") ? [p] : [];
  });
}

function loadQueries(): Query[] {
  const seen = new Set<string>();
  const out: Query[] = [];
  for (const f of jsonFiles(corpusPath("toolbench"))) {
    let d: unknown;
    try {
      d = JSON.parse(readFileSync(f, "utf8"));
    } catch {
      continue;
    }
    const items = Array.isArray(d) ? d : d && typeof d === "object" ? Object.values(d) : [];
    for (const r of items as Query[]) {
      if (!r || typeof r !== "object" || !Array.isArray(r["relevant APIs"]) || !Array.isArray(r.api_list)) continue;
      if (seen.has(r.query)) continue;
      seen.add(r.query);
      out.push(r);
    }
  }
  return out;
}

const key = (tool: string, api: string) => `${tool}::${api}`;
const fileName = (k: string) => `${k.replace(/[^A-Za-z0-9]+/g, "_").slice(0, 100)}.md`;

function apiMarkdown(a: Api): string {
  const params = [...(a.required_parameters ?? []), ...(a.optional_parameters ?? [])]
    .map((p) => `- ${p?.name ?? ""}: ${p?.description ?? ""}`)
    .join("\n");
  return `# ${a.api_name} (${a.tool_name})\n\nCategory: ${a.category_name ?? ""}\n\n${a.api_description ?? ""}\n\n${params}\n`;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? 0 : s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

const queries = loadQueries();
const apis = new Map<string, Api>();
for (const q of queries) for (const a of q.api_list) apis.set(key(a.tool_name, a.api_name), a);

const model = await startReplayServer();
serveHashedEmbeddings(model, EMBED_DIM);
const reranker = await startRerankServer(lexicalRerank);
const stores = await openStores(":memory:");
const llm = createLlmService({
  endpoints: { replay: { provider: "openai-compatible", baseURL: model.openaiBaseURL, apiKey: "k" } },
  default: "replay",
  retry: { maxRetries: 0 },
});
const kb = new KnowledgeBases(stores.knowledge, {
  documents: new TextDocumentService(),
  llm,
  config: KnowledgeConfigSchema.parse({
    embedding: { model: `hashed-bow-${EMBED_DIM}`, vectorWeight: 0.7 },
    rerank: { baseURL: reranker.baseURL, model: "lexical-idf-coverage" },
  }),
});
await kb.create({ id: "toolbench", name: "ToolBench APIs" });
const docKey = new Map<string, string>();
const docText = new Map<string, Set<string>>();
for (const [k, a] of apis) {
  const md = apiMarkdown(a);
  const name = fileName(k);
  docKey.set(name, k);
  docText.set(k, new Set(indexWords(md)));
  await kb.addFile("toolbench", {
    name,
    bytes: new TextEncoder().encode(md),
    mimeType: "text/markdown",
    extension: ".md",
  });
}

const KS = [1, 3, 5, 10];
const TOP = Math.max(...KS) * 3;
const recall = (ranked: string[], relevant: Set<string>, k: number) =>
  relevant.size === 0 ? 0 : ranked.slice(0, k).filter((x) => relevant.has(x)).length / relevant.size;

type Method = "overlap" | "bm25" | "vector" | "hybrid" | "rerank";
const METHODS: Array<[Method, string]> = [
  ["overlap", "word overlap"],
  ["bm25", "BM25 (FTS5)"],
  ["vector", "vector"],
  ["hybrid", "hybrid"],
  ["rerank", "hybrid+rerank"],
];
const scores = Object.fromEntries(
  METHODS.map(([m]) => [m, Object.fromEntries(KS.map((k) => [k, [] as number[]]))]),
) as Record<Method, Record<number, number[]>>;
const ms: Record<Method, number[]> = { overlap: [], bm25: [], vector: [], hybrid: [], rerank: [] };

/** API keys in rank order, each once (a document may have several chunks). */
async function ranked(method: Method, query: string): Promise<string[]> {
  const t0 = performance.now();
  let names: string[];
  if (method === "overlap") {
    const words = new Set(indexWords(query));
    names = [...docText.entries()]
      .map(([k, w]) => ({ k, n: [...words].filter((x) => w.has(x)).length }))
      .filter((x) => x.n > 0)
      .sort((a, b) => b.n - a.n || a.k.localeCompare(b.k))
      .map((x) => fileName(x.k));
  } else if (method === "rerank") {
    names = (
      await kb.retrieve({ datasetIds: ["toolbench"], query, topK: TOP, rerank: { model: "lexical-idf-coverage" } })
    ).map((p) => p.title);
  } else {
    const mode: SearchMode = method === "bm25" ? "keyword" : method;
    names = (await kb.search(["toolbench"], query, { topK: TOP, mode })).map((h) => h.documentName);
  }
  ms[method].push(performance.now() - t0);
  return [...new Set(names.map((n) => docKey.get(n)!))];
}

for (const q of queries) {
  const relevant = new Set(q["relevant APIs"].map(([t, a]) => key(t, a)).filter((k) => apis.has(k)));
  for (const [m] of METHODS) {
    const r = await ranked(m, q.query);
    for (const k of KS) scores[m][k]!.push(recall(r, relevant, k));
  }
}
const rerankCalls = reranker.requests.length;
await stores.close();
await model.close();
await reranker.close();

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
const rows = KS.map(
  (k) =>
    ({ k, ...Object.fromEntries(METHODS.map(([m]) => [m, mean(scores[m][k]!)])) }) as { k: number } & Record<
      Method,
      number
    >,
);
const medians = Object.fromEntries(METHODS.map(([m]) => [m, median(ms[m])])) as Record<Method, number>;
if (process.argv.includes("--json")) {
  process.stdout.write(
    `${JSON.stringify({ queries: queries.length, documents: apis.size, embeddings: `hashed bag of words, ${EMBED_DIM} dims`, rerank: "lexical IDF coverage", rows, medianQueryMs: medians, rerankCalls }, null, 2)}\n`,
  );
} else {
  process.stdout.write(
    `ToolBench tool retrieval: ${queries.length} labelled queries over ${apis.size} API documents\n`,
  );
  process.stdout.write(
    `  embeddings: replay model server, deterministic hashed bag of words (${EMBED_DIM} dims); rerank: loopback /rerank server, IDF-weighted query-word coverage (${rerankCalls} calls) — stand-ins, no local model\n`,
  );
  process.stdout.write(`  recall@k  ${METHODS.map(([, label]) => label.padEnd(14)).join(" ")}\n`);
  for (const r of rows)
    process.stdout.write(
      `  k=${String(r.k).padEnd(7)} ${METHODS.map(([m]) => r[m].toFixed(3).padEnd(14)).join(" ")}\n`,
    );
  process.stdout.write(`  median ms ${METHODS.map(([m]) => medians[m].toFixed(2).padEnd(14)).join(" ")}\n`);
}
