/**
 * Knowledge bases at scale, on SQLite and PostgreSQL: ingest rate (chunks/s through the store), then the
 * median (p50) wall time of a BM25 query, a vector query and a hybrid query (KnowledgeBases.search, the
 * retrieval node's path), and the vector query's recall@10 against the exact cosine top 10.
 *
 * The corpus is synthetic and deterministic: N chunks, each of one of 200 topics; a chunk is 60 words, 70 %
 * from its topic's 40-word vocabulary and the rest from a shared 5,000-word one; its vector (64 dimensions)
 * is its topic's random centroid plus Gaussian noise (σ 0.5 per dimension), so nearest neighbours are
 * topic-mates as with real embeddings of related text. Queries: 3 words of a random topic, and a vector near
 * its centroid. Embeddings for hybrid queries are computed here (no model server: the number measured is the
 * stores' search, not a model's latency).
 *
 *   npx tsx bench/kb-scale.ts [chunks=100000] [backends=sqlite,postgres]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LlmService } from "../src/ir/services.js";
import { KnowledgeBases } from "../src/knowledge/service.js";
import { DEFAULT_CHUNKING } from "../src/knowledge/config.js";
import { cosine } from "../src/store/knowledge.js";
import { openStores } from "../src/store/open.js";
import type { Stores } from "../src/store/stores.js";
import { startPostgres } from "../test/support/postgres.js";

const N = Number(process.argv[2] ?? 100_000);
const BACKENDS = (process.argv[3] ?? "sqlite,postgres").split(",");
const TOPICS = 200;
const DIM = 64;
const QUERIES = 40;
const PER_DOC = 1_000;

let seed = 11;
const rnd = () => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed / 0x7fffffff;
};
const gauss = () => Math.sqrt(-2 * Math.log(1 - rnd())) * Math.cos(2 * Math.PI * rnd());
const pick = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)]!;

const SHARED = Array.from({ length: 5_000 }, (_, i) => `s${i.toString(36)}q${((i * 7919) % 9973).toString(36)}`);
const TOPIC_WORDS = Array.from({ length: TOPICS }, (_, t) => Array.from({ length: 40 }, (_, i) => `t${t}w${i}k`));
const CENTROIDS = Array.from({ length: TOPICS }, () => Array.from({ length: DIM }, gauss));

function chunk(): { content: string; embedding: number[]; topic: number } {
  const topic = Math.floor(rnd() * TOPICS);
  const words = Array.from({ length: 60 }, () => (rnd() < 0.7 ? pick(TOPIC_WORDS[topic]!) : pick(SHARED)));
  return { content: words.join(" "), embedding: CENTROIDS[topic]!.map((c) => c + 0.5 * gauss()), topic };
}

const QUERY_SET = Array.from({ length: QUERIES }, () => {
  const topic = Math.floor(rnd() * TOPICS);
  const text = [pick(TOPIC_WORDS[topic]!), pick(TOPIC_WORDS[topic]!), pick(SHARED)].join(" ");
  return { text, vector: CENTROIDS[topic]!.map((c) => c + 0.3 * gauss()) };
});
const byText = new Map(QUERY_SET.map((q) => [q.text, q.vector]));

// The hybrid query's embedding comes from here: the query texts' vectors, known in advance.
const embedder: Pick<LlmService, "embed"> = {
  embed: async (texts: string[]) => texts.map((t) => byText.get(t) ?? new Array(DIM).fill(0)),
};

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function timed(f: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await f();
  return performance.now() - t0;
}

async function bench(name: string, stores: Stores): Promise<void> {
  const k = stores.knowledge;
  await k.createBase({ id: "bench", name: "bench", chunking: DEFAULT_CHUNKING, embeddingModel: "synthetic" });
  seed = 11;
  const all: Array<{ content: string; embedding: number[] }> = [];
  let ingestMs = 0;
  for (let d = 0; d * PER_DOC < N; d++) {
    const chunks = Array.from({ length: Math.min(PER_DOC, N - d * PER_DOC) }, chunk);
    all.push(...chunks.map(({ content, embedding }) => ({ content, embedding })));
    ingestMs += await timed(() => k.addDocument("bench", { name: `doc-${d}.txt`, mimeType: "text/plain", size: 1 }, chunks));
  }
  const kb = new KnowledgeBases(k, { llm: embedder as LlmService, config: { chunking: DEFAULT_CHUNKING, embedding: { model: "synthetic", provider: "", vectorWeight: 0.7 } } });
  const bm25: number[] = [];
  const vec: number[] = [];
  const hybrid: number[] = [];
  let recall = 0;
  for (const q of QUERY_SET) {
    bm25.push(await timed(() => k.searchText(["bench"], q.text, 20)));
    let got: string[] = [];
    vec.push(await timed(async () => (got = (await k.searchVector(["bench"], q.vector, 10)).map((h) => h.content))));
    hybrid.push(await timed(() => kb.search(["bench"], q.text, { topK: 10 })));
    const exact = all
      .map((c) => ({ c: c.content, s: cosine(q.vector, c.embedding) }))
      .sort((a, b) => b.s - a.s)
      .slice(0, 10)
      .map((x) => x.c);
    recall += exact.filter((c) => got.includes(c)).length / 10;
  }
  const f = (x: number) => x.toFixed(1).padStart(8);
  console.log(
    `${name.padEnd(10)} ingest ${Math.round((N / ingestMs) * 1000)
      .toString()
      .padStart(6)} chunks/s | p50 ms: BM25 ${f(median(bm25))} vector ${f(median(vec))} hybrid ${f(median(hybrid))} | vector recall@10 ${(recall / QUERIES).toFixed(3)}`,
  );
}

const dir = mkdtempSync(join(tmpdir(), "weft-kb-scale-"));
console.log(`${N} chunks (${TOPICS} topics, 60 words, ${DIM}-dim vectors), ${QUERIES} queries per measure`);
try {
  if (BACKENDS.includes("sqlite")) {
    const stores = await openStores(join(dir, "kb.db"));
    await bench("SQLite", stores).finally(() => stores.close());
  }
  if (BACKENDS.includes("postgres")) {
    const cluster = await startPostgres();
    try {
      const stores = await openStores(await cluster.createDatabase());
      await bench("PostgreSQL", stores).finally(() => stores.close());
    } finally {
      await cluster.stop();
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
