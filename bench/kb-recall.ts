/**
 * Knowledge-base retrieval quality on a labelled set written by others: ToolBench / StableToolBench queries
 * (../shared/corpus/toolbench), each labelled with its "relevant APIs". Every API of the queries' api_lists
 * becomes one document of a knowledge base (its tool, name, category, description and parameters, as
 * Markdown, added through `weft kb add`'s path); each query is searched and recall@k is the share of its
 * relevant APIs among the top k. Baseline in the same run: ranking by the count of query words a document
 * shares (no IDF, no length normalisation), over the same words.
 *   npx tsx bench/kb-recall.ts [--json]
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { KnowledgeBases } from "../src/knowledge/service.js";
import { indexWords } from "../src/store/knowledge.js";
import { openStores } from "../src/store/open.js";
import { TextDocumentService } from "../src/tools/documents.js";
import { corpusPath } from "../test/support/corpus.js";

type Api = { category_name?: string; tool_name: string; api_name: string; api_description?: string; required_parameters?: any[]; optional_parameters?: any[] };
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

const stores = await openStores(":memory:");
const kb = new KnowledgeBases(stores.knowledge, { documents: new TextDocumentService() });
await kb.create({ id: "toolbench", name: "ToolBench APIs" });
const docKey = new Map<string, string>();
const docText = new Map<string, Set<string>>();
for (const [k, a] of apis) {
  const md = apiMarkdown(a);
  const name = fileName(k);
  docKey.set(name, k);
  docText.set(k, new Set(indexWords(md)));
  await kb.addFile("toolbench", { name, bytes: new TextEncoder().encode(md), mimeType: "text/markdown", extension: ".md" });
}

const KS = [1, 3, 5, 10];
const recall = (ranked: string[], relevant: Set<string>, k: number) =>
  relevant.size === 0 ? 0 : ranked.slice(0, k).filter((x) => relevant.has(x)).length / relevant.size;

const bm25: Record<number, number[]> = Object.fromEntries(KS.map((k) => [k, []]));
const overlap: Record<number, number[]> = Object.fromEntries(KS.map((k) => [k, []]));
const ms: number[] = [];
for (const q of queries) {
  const relevant = new Set(q["relevant APIs"].map(([t, a]) => key(t, a)).filter((k) => apis.has(k)));
  const t0 = performance.now();
  const hits = await kb.search(["toolbench"], q.query, { topK: Math.max(...KS) * 3 });
  ms.push(performance.now() - t0);
  const ranked = [...new Set(hits.map((h) => docKey.get(h.documentName)!))];
  const words = new Set(indexWords(q.query));
  const base = [...docText.entries()]
    .map(([k, w]) => ({ k, n: [...words].filter((x) => w.has(x)).length }))
    .filter((x) => x.n > 0)
    .sort((a, b) => b.n - a.n || a.k.localeCompare(b.k))
    .map((x) => x.k);
  for (const k of KS) {
    bm25[k]!.push(recall(ranked, relevant, k));
    overlap[k]!.push(recall(base, relevant, k));
  }
}
await stores.close();

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
const rows = KS.map((k) => ({ k, bm25: mean(bm25[k]!), overlap: mean(overlap[k]!) }));
if (process.argv.includes("--json")) {
  process.stdout.write(`${JSON.stringify({ queries: queries.length, documents: apis.size, rows, medianQueryMs: median(ms) }, null, 2)}\n`);
} else {
  process.stdout.write(`ToolBench tool retrieval: ${queries.length} labelled queries over ${apis.size} API documents\n`);
  process.stdout.write("  k    recall@k BM25 (FTS5)   recall@k word overlap (baseline)   ratio\n");
  for (const r of rows) {
    const ratio = r.overlap > 0 ? (r.bm25 / r.overlap).toFixed(2) : "n/a";
    process.stdout.write(`  ${String(r.k).padEnd(4)} ${r.bm25.toFixed(3).padEnd(22)} ${r.overlap.toFixed(3).padEnd(34)} ${ratio}\n`);
  }
  process.stdout.write(`  median search time per query: ${median(ms).toFixed(2)} ms\n`);
}
