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
 * On SQLite the store's vector search (sqlite-vec's vec0, exact KNN in C) is measured beside the two other
 * ways SQLite could rank vectors: the scan it replaced (every vector of the base read and ranked by cosine in
 * JavaScript; timed on the first SCAN_QUERIES queries only, it takes seconds each) and the LSH buckets
 * PostgreSQL uses (src/store/vector-lsh.ts), built here as B-tree indexed columns of a side table.
 *
 * On PostgreSQL both vector paths run, each in its own database of one cluster: pgvector's HNSW index (when
 * the server has the extension; the store opens on it by itself) and the LSH buckets (`vector_index=lsh`,
 * what runs without pgvector).
 *
 *   npx tsx bench/kb-scale.ts [chunks=100000] [backends=sqlite,postgres]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LlmService } from "../src/ir/services.js";
import { KnowledgeBases } from "../src/knowledge/service.js";
import { DEFAULT_CHUNKING } from "../src/store/chunking.js";
import { cosine } from "../src/store/knowledge.js";
import { openStores } from "../src/store/open.js";
import type { PostgresKnowledgeStore } from "../src/store/postgres/knowledge.js";
import type { SqliteKnowledgeStore } from "../src/store/sqlite/knowledge.js";
import type { Stores } from "../src/store/stores.js";
import { LSH_TABLES, lshBuckets, probes } from "../src/store/vector-lsh.js";
import { startPostgres } from "../test/support/postgres.js";

const N = Number(process.argv[2] ?? 100_000);
const BACKENDS = (process.argv[3] ?? "sqlite,postgres").split(",");
const TOPICS = 200;
const DIM = 64;
const QUERIES = 40;
const PER_DOC = 1_000;
const SCAN_QUERIES = 5;

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

const exactTop10 = (all: Array<{ content: string; embedding: number[] }>, v: number[]) =>
  all
    .map((c) => ({ c: c.content, s: cosine(v, c.embedding) }))
    .sort((a, b) => b.s - a.s)
    .slice(0, 10)
    .map((x) => x.c);
const recallOf = (got: string[], exact: string[]) => exact.filter((c) => got.includes(c)).length / 10;
const vecOf = (b: Buffer) => new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));

function top10(rows: Array<{ content: string; embedding: Buffer }>, v: number[]): string[] {
  return rows
    .map((r) => ({ c: r.content, s: cosine(v, vecOf(r.embedding)) }))
    .sort((a, b) => b.s - a.s)
    .slice(0, 10)
    .map((x) => x.c);
}

/** The SQLite store's vector path before the index: every vector of the base read and ranked in JavaScript. */
function scanSqlite(k: SqliteKnowledgeStore, v: number[]): string[] {
  const rows = k.db
    .prepare("SELECT content, embedding FROM kb_chunks WHERE embedding IS NOT NULL AND base_id = ?")
    .all("bench");
  return top10(rows as Array<{ content: string; embedding: Buffer }>, v);
}

/** PostgreSQL's LSH buckets as SQLite columns (B-tree indexed), queried as the PostgreSQL store does. */
function lshSqlite(k: SqliteKnowledgeStore): (v: number[]) => string[] {
  const db = k.db;
  const cols = Array.from({ length: LSH_TABLES }, (_, t) => `l${t}`);
  db.exec(`CREATE TABLE bench_lsh (rowid INTEGER PRIMARY KEY, ${cols.map((c) => `${c} INTEGER`).join(", ")})`);
  const insert = db.prepare(`INSERT INTO bench_lsh VALUES (?, ${cols.map(() => "?").join(", ")})`);
  const rows = db.prepare("SELECT rowid, embedding FROM kb_chunks WHERE embedding IS NOT NULL").all() as Array<{
    rowid: number;
    embedding: Buffer;
  }>;
  db.transaction(() => {
    for (const r of rows) insert.run(r.rowid, ...lshBuckets(vecOf(r.embedding)));
  })();
  for (const c of cols) db.exec(`CREATE INDEX bench_lsh_${c} ON bench_lsh (${c})`);
  return (v) => {
    const buckets = lshBuckets(v);
    let found: Array<{ content: string; embedding: Buffer }> = [];
    for (const radius of [1, 2]) {
      const ps = buckets.map((b) => probes(b, radius));
      const where = cols.map((c, t) => `l.${c} IN (${ps[t]!.join(",")})`).join(" OR ");
      found = db
        .prepare(`SELECT c.content, c.embedding FROM bench_lsh l JOIN kb_chunks c ON c.rowid = l.rowid WHERE ${where}`)
        .all() as typeof found;
      if (found.length >= 10) break;
    }
    return top10(found, v);
  };
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
    ingestMs += await timed(() =>
      k.addDocument("bench", { name: `doc-${d}.txt`, mimeType: "text/plain", size: 1 }, chunks),
    );
  }
  const kb = new KnowledgeBases(k, {
    llm: embedder as LlmService,
    config: { chunking: DEFAULT_CHUNKING, embedding: { model: "synthetic", provider: "", vectorWeight: 0.7 } },
  });
  const bm25: number[] = [];
  const vec: number[] = [];
  const hybrid: number[] = [];
  let recall = 0;
  for (const q of QUERY_SET) {
    bm25.push(await timed(() => k.searchText(["bench"], q.text, 20)));
    let got: string[] = [];
    vec.push(await timed(async () => (got = (await k.searchVector(["bench"], q.vector, 10)).map((h) => h.content))));
    hybrid.push(await timed(() => kb.search(["bench"], q.text, { topK: 10 })));
    recall += recallOf(got, exactTop10(all, q.vector));
  }
  const f = (x: number) => x.toFixed(1).padStart(8);
  console.log(
    `${name.padEnd(10)} ingest ${Math.round((N / ingestMs) * 1000)
      .toString()
      .padStart(
        6,
      )} chunks/s | p50 ms: BM25 ${f(median(bm25))} vector ${f(median(vec))} hybrid ${f(median(hybrid))} | vector recall@10 ${(recall / QUERIES).toFixed(3)}`,
  );
  if (stores.kind === "sqlite") sqliteAlternatives(k as SqliteKnowledgeStore, all);
}

/** The vector paths SQLite did not take, on the same data: the old scan and LSH buckets. */
function sqliteAlternatives(k: SqliteKnowledgeStore, all: Array<{ content: string; embedding: number[] }>): void {
  const f = (x: number) => x.toFixed(1).padStart(8);
  const measure = (queries: typeof QUERY_SET, search: (v: number[]) => string[]) => {
    const times: number[] = [];
    let recall = 0;
    for (const q of queries) {
      const t0 = performance.now();
      const got = search(q.vector);
      times.push(performance.now() - t0);
      recall += recallOf(got, exactTop10(all, q.vector));
    }
    return `p50 ${f(median(times))} ms, recall@10 ${(recall / queries.length).toFixed(3)}`;
  };
  console.log(
    `${"".padEnd(10)} vector by scan (the path before sqlite-vec; ${SCAN_QUERIES} queries): ${measure(QUERY_SET.slice(0, SCAN_QUERIES), (v) => scanSqlite(k, v))}`,
  );
  const t0 = performance.now();
  const lsh = lshSqlite(k);
  const built = ((performance.now() - t0) / 1000).toFixed(1);
  console.log(
    `${"".padEnd(10)} vector by LSH buckets (B-tree columns, built in ${built} s): ${measure(QUERY_SET, lsh)}`,
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
      for (const param of ["", "?vector_index=lsh"]) {
        const stores = await openStores(`${await cluster.createDatabase()}${param}`);
        const choice = (stores.knowledge as PostgresKnowledgeStore).vectorIndex;
        console.log(
          `PostgreSQL vector index: ${choice.kind === "pgvector" ? `pgvector ${choice.pg.version} (HNSW, cosine)` : `LSH buckets (${choice.reason})`}`,
        );
        await bench(choice.kind === "pgvector" ? "PG HNSW" : "PG LSH", stores).finally(() => stores.close());
      }
    } finally {
      await cluster.stop();
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
