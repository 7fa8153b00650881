/**
 * PostgreSQL's two vector paths. With pgvector installed on the test cluster, the store opens on the HNSW path
 * (the extension created, one index per dimension) and vector and hybrid search run through it; without it
 * that part is skipped, its title saying so. The LSH path (`vector_index=lsh`, and every server without the
 * extension) runs wherever PostgreSQL does. Hybrid search embeds through the loopback replay model server.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KnowledgeBases } from "../../src/knowledge/service.js";
import { createLlmService } from "../../src/llm/index.js";
import { DEFAULT_CHUNKING } from "../../src/store/chunking.js";
import { openStores, type Stores } from "../../src/store/open.js";
import type { PostgresKnowledgeStore } from "../../src/store/postgres/knowledge.js";
import { TextDocumentService } from "../../src/tools/documents.js";
import { hashedEmbedding, serveHashedEmbeddings } from "../support/hashed-embeddings.js";
import { hasPostgres, type PgCluster, pgExtensionInstalled, startPostgres } from "../support/postgres.js";
import { type ReplayServer, startReplayServer } from "../support/replay-server.js";

const hasPgvector = hasPostgres && pgExtensionInstalled("vector");

const DOCS: Record<string, string> = {
  "travel.md": "Train tickets are refunded in second class.\n\nTaxi rides need a receipt and a reason.",
  "home.md": "Employees may work from home two days a week.\n\nThe team lead approves the days in advance.",
  "kit.md": "Laptops are replaced every four years.\n\nA broken monitor is reported to the service desk.",
};

let seed = 5;
const rand = () => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return (seed / 2147483648) * 2 - 1;
};

let cluster: PgCluster | undefined;
let model: ReplayServer | undefined;
const opened: Stores[] = [];

async function open(url: string): Promise<Stores> {
  const s = await openStores(url);
  opened.push(s);
  return s;
}

function kbOn(stores: Stores): KnowledgeBases {
  const llm = createLlmService({
    endpoints: { replay: { provider: "openai-compatible", baseURL: model!.openaiBaseURL, apiKey: "k" } },
    default: "replay",
    retry: { maxRetries: 0 },
  });
  return new KnowledgeBases(stores.knowledge, {
    documents: new TextDocumentService(),
    llm,
    config: {
      chunking: { ...DEFAULT_CHUNKING, separator: "\n\n" },
      embedding: { model: "embed-small", provider: "", vectorWeight: 0.6 },
    },
  });
}

const file = (name: string) => ({
  name,
  bytes: new TextEncoder().encode(DOCS[name]),
  extension: "md",
  mimeType: "text/markdown",
});

/** How often PostgreSQL has scanned an index (pg_stat_user_indexes; the statistics are flushed first). */
async function indexScans(stores: Stores, index: string): Promise<number> {
  const pool = (stores.knowledge as unknown as { db: { query: (sql: string, args?: unknown[]) => Promise<any[]> } }).db;
  await pool.query("SELECT pg_stat_clear_snapshot()");
  const [row] = await pool.query(
    "SELECT COALESCE(SUM(idx_scan), 0)::int AS n FROM pg_stat_user_indexes WHERE indexrelname = $1",
    [index],
  );
  return row?.n ?? 0;
}

describe.skipIf(!hasPostgres && !process.env.CI)(
  hasPostgres ? "PostgreSQL vector paths" : "PostgreSQL vector paths (not installed: apt-get install postgresql)",
  () => {
    beforeAll(async () => {
      cluster = await startPostgres();
      model = await startReplayServer();
      serveHashedEmbeddings(model);
    }, 120_000);
    afterAll(async () => {
      for (const s of opened) await s.close();
      await model?.close();
      await cluster?.stop();
    });

    it("vector_index=lsh keeps the LSH buckets even where pgvector exists; a wrong value is a typed error", async () => {
      const stores = await open(`${await cluster!.createDatabase()}?vector_index=lsh`);
      expect((stores.knowledge as PostgresKnowledgeStore).vectorIndex).toMatchObject({
        kind: "lsh",
        reason: expect.stringContaining("vector_index=lsh"),
      });
      const kb = kbOn(stores);
      await kb.create({ id: "h", name: "Handbook" });
      for (const name of Object.keys(DOCS)) await kb.addFile("h", file(name));
      const [hit] = await kb.search(["h"], "who approves the days", { topK: 1, mode: "vector" });
      expect(hit!.content).toBe("The team lead approves the days in advance.");
      await expect(openStores(`${await cluster!.createDatabase()}?vector_index=ivf`)).rejects.toMatchObject({
        code: "store.bad_spec",
      });
    });

    describe.skipIf(!hasPgvector)(
      hasPgvector ? "pgvector (HNSW)" : "pgvector (HNSW) — skipped: pgvector not installed on this PostgreSQL",
      () => {
        it("opens on pgvector: the extension created, vector and hybrid search through the dimension's HNSW index", async () => {
          const stores = await open(await cluster!.createDatabase());
          const choice = (stores.knowledge as PostgresKnowledgeStore).vectorIndex;
          expect(choice).toMatchObject({ kind: "pgvector", pg: { schema: "weft" } });
          const kb = kbOn(stores);
          await kb.create({ id: "h", name: "Handbook" });
          for (const name of Object.keys(DOCS)) await kb.addFile("h", file(name));
          const before = await indexScans(stores, "kb_chunks_hnsw_64");
          const vector = await kb.search(["h"], "who approves the days", { topK: 2, mode: "vector" });
          expect(vector[0]!.content).toBe("The team lead approves the days in advance.");
          expect(vector[0]!.score).toBeCloseTo(
            // cosine of the hashed bag-of-words vectors, as pgvector computes it
            cosineOf(
              hashedEmbedding("who approves the days"),
              hashedEmbedding("The team lead approves the days in advance."),
            ),
            5,
          );
          const hybrid = await kb.search(["h"], "broken monitor service desk", { topK: 2 });
          expect(hybrid[0]!.content).toBe("A broken monitor is reported to the service desk.");
          await expect
            .poll(() => indexScans(stores, "kb_chunks_hnsw_64"), { timeout: 20_000 })
            .toBeGreaterThanOrEqual(before + 2);
        });

        it("finds the true nearest among thousands, keeps bases and dimensions apart, and a small base is not starved by a large one", async () => {
          const stores = await open(await cluster!.createDatabase());
          const k = stores.knowledge;
          await k.createBase({ id: "big", name: "Big", chunking: DEFAULT_CHUNKING, embeddingModel: "e32" });
          await k.createBase({ id: "small", name: "Small", chunking: DEFAULT_CHUNKING, embeddingModel: "e32" });
          await k.createBase({ id: "three", name: "Three", chunking: DEFAULT_CHUNKING, embeddingModel: "e3" });
          const vectors = Array.from({ length: 4000 }, () => Array.from({ length: 32 }, rand));
          await k.addDocument(
            "big",
            { name: "big.md", mimeType: "text/markdown", size: 1 },
            vectors.map((v, i) => ({ content: `big ${i}`, embedding: v })),
          );
          await k.addDocument(
            "small",
            { name: "small.md", mimeType: "text/markdown", size: 1 },
            vectors.slice(0, 5).map((v, i) => ({ content: `small ${i}`, embedding: v.map((x) => -x) })),
          );
          await k.addDocument("three", { name: "three.md", mimeType: "text/markdown", size: 1 }, [
            { content: "x", embedding: [1, 0, 0] },
            { content: "y", embedding: [0, 1, 0] },
          ]);
          const query = vectors[2345]!.map((x, i) => x + (i % 2 ? 0.05 : -0.05));
          const got = await k.searchVector(["big"], query, 5);
          expect(got[0]!.content).toBe("big 2345");
          for (let i = 1; i < got.length; i++) expect(got[i - 1]!.score).toBeGreaterThanOrEqual(got[i]!.score);
          // The small base's five chunks point away from the query: an index scan that stopped at ef_search candidates
          // of the big base would find none of them.
          expect((await k.searchVector(["small"], query, 5)).map((h) => h.content).sort()).toEqual([
            "small 0",
            "small 1",
            "small 2",
            "small 3",
            "small 4",
          ]);
          expect((await k.searchVector(["three"], [0.9, 0.1, 0], 1)).map((h) => h.content)).toEqual(["x"]);
          expect(await k.searchVector(["three"], query, 3)).toEqual([]);
          const pool = (k as unknown as { db: { query: (sql: string) => Promise<Array<{ indexname: string }>> } }).db;
          const indexes = (
            await pool.query("SELECT indexname FROM pg_indexes WHERE indexname LIKE 'kb_chunks_hnsw_%' ORDER BY 1")
          ).map((r) => r.indexname);
          expect(indexes).toEqual(["kb_chunks_hnsw_3", "kb_chunks_hnsw_32"]);
        });

        it("a database written on the LSH path gets its vectors into pgvector when opened with it: every chunk found, by exact cosine", async () => {
          const url = await cluster!.createDatabase();
          const lsh = await open(`${url}?vector_index=lsh`);
          const kb = kbOn(lsh);
          await kb.create({ id: "h", name: "Handbook" });
          for (const name of Object.keys(DOCS)) await kb.addFile("h", file(name));
          const q = "taxi receipt reason";
          const hnsw = await open(url);
          expect((hnsw.knowledge as PostgresKnowledgeStore).vectorIndex.kind).toBe("pgvector");
          // All six chunks come back, each scored by its true cosine (LSH buckets, approximate, may miss some).
          const found = await kbOn(hnsw).search(["h"], q, { topK: 6, mode: "vector" });
          expect(found).toHaveLength(6);
          for (const h of found)
            expect(h.score).toBeCloseTo(cosineOf(hashedEmbedding(q), hashedEmbedding(h.content)), 5);
          expect(found[0]!.content).toBe("Taxi rides need a receipt and a reason.");
          // Deleting a document removes its vectors from the pgvector path too.
          const travel = (await hnsw.knowledge.listDocuments("h")).find((d) => d.name === "travel.md")!;
          await hnsw.knowledge.deleteDocument("h", travel.id);
          expect(
            (await kbOn(hnsw).search(["h"], q, { topK: 6, mode: "vector" })).map((h) => h.documentName).sort(),
          ).toEqual(["home.md", "home.md", "kit.md", "kit.md"]);
        });
      },
    );
  },
);

function cosineOf(a: number[], b: number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! ** 2;
    nb += b[i]! ** 2;
  }
  return dot / Math.sqrt(na * nb);
}
