/**
 * Chinese retrieval with and without word segmentation, on a set built from ../shared/corpus: every string of
 * the Dify DSL files (prompts, instructions, answers) with at least 30 Han characters, each file one document
 * chunked as `weft kb add` does (maxLength 400). The chunks are indexed twice in SQLite FTS5 with BM25: as
 * the knowledge store does (CJK runs split into words by Intl.Segmenter; the real SqliteKnowledgeStore) and
 * per character (each Han character a word, how the store indexed Chinese before segmentation).
 *
 * Labels are made mechanically, independent of either tokenisation: a query is two 4-character Han windows
 * taken (seeded) from two different places of one chunk, kept only when that chunk is the one chunk of the
 * whole set containing both windows as exact substrings; that chunk is the query's one relevant answer.
 * recall@k is the share of queries whose chunk is among the top k.
 *
 *   npx tsx bench/kb-cjk-recall.ts [queries=200]
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { parse } from "yaml";
import { chunkText } from "../src/knowledge/chunk.js";
import { ChunkingSchema } from "../src/store/chunking.js";
import { openStores } from "../src/store/open.js";
import { corpusPath } from "../test/support/corpus.js";

const QUERIES = Number(process.argv[2] ?? 200);
const HAN = /\p{Script=Han}/u;
const HAN_RUN = /\p{Script=Han}+/gu;

let seed = 39;
const rnd = () => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed / 0x7fffffff;
};

function yamlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? yamlFiles(p) : /\.ya?ml$/.test(n) ? [p] : [];
  });
}

function strings(v: unknown, out: string[]): string[] {
  if (typeof v === "string") out.push(v);
  else if (Array.isArray(v)) for (const x of v) strings(x, out);
  else if (v && typeof v === "object") for (const x of Object.values(v)) strings(x, out);
  return out;
}

const hanCount = (s: string) => [...s].filter((c) => HAN.test(c)).length;

function chunks(): string[] {
  const chunking = ChunkingSchema.parse({ maxLength: 400, overlap: 0 });
  const seen = new Set<string>();
  const out: string[] = [];
  for (const f of yamlFiles(corpusPath("dify-dsl")).sort()) {
    let doc: unknown;
    try {
      doc = parse(readFileSync(f, "utf8"));
    } catch {
      continue;
    }
    const text = strings(doc, [])
      .filter((s) => hanCount(s) >= 30)
      .join("\n\n");
    for (const c of chunkText(text, chunking)) if (hanCount(c) >= 30 && !seen.has(c)) seen.add(c) && out.push(c);
  }
  return out;
}

/** Two 4-character Han windows of one chunk that no other chunk contains together; undefined when none is found. */
function labelledQuery(all: string[], i: number): string | undefined {
  const runs = [...all[i]!.matchAll(HAN_RUN)].map((m) => m[0]).filter((r) => r.length >= 4);
  for (let attempt = 0; attempt < 20 && runs.length > 0; attempt++) {
    const pick = () => {
      const r = runs[Math.floor(rnd() * runs.length)]!;
      const at = Math.floor(rnd() * (r.length - 3));
      return r.slice(at, at + 4);
    };
    const a = pick();
    const b = pick();
    if (a === b || a.includes(b) || b.includes(a)) continue;
    if (all.every((c, j) => j === i || !(c.includes(a) && c.includes(b)))) return `${a} ${b}`;
  }
  return undefined;
}

/** The pre-segmentation index: each Han character a word, everything else as the store splits it. */
const perChar = (s: string) => (s.toLowerCase().match(/\p{Script=Han}|[\p{L}\p{N}]+/gu) ?? []).join(" ");

const all = chunks();
const queries: Array<{ q: string; answer: number }> = [];
for (let tries = 0; queries.length < QUERIES && tries < QUERIES * 10; tries++) {
  const i = Math.floor(rnd() * all.length);
  const q = labelledQuery(all, i);
  if (q) queries.push({ q, answer: i });
}

const KS = [1, 5, 10];
const recall = (ranks: number[]) =>
  KS.map((k) => `@${k} ${(ranks.filter((r) => r >= 0 && r < k).length / ranks.length).toFixed(3)}`).join("  ");

// With segmentation: the knowledge store itself.
const stores = await openStores(":memory:");
const ids = new Map<string, number>();
try {
  await stores.knowledge.createBase({ id: "zh", name: "zh", chunking: ChunkingSchema.parse({}) });
  const doc = await stores.knowledge.addDocument(
    "zh",
    { name: "corpus-zh", mimeType: "text/plain", size: 1 },
    all.map((content) => ({ content })),
  );
  all.forEach((_, i) => {
    ids.set(`${doc.id}-${i + 1}`, i);
  });
  const seg: number[] = [];
  for (const { q, answer } of queries) {
    const hits = await stores.knowledge.searchText(["zh"], q, 10);
    seg.push(hits.findIndex((h) => ids.get(h.chunkId) === answer));
  }

  // Without: the same FTS5 table and BM25, per character.
  const db = new Database(":memory:");
  db.exec("CREATE VIRTUAL TABLE fts USING fts5(words, tokenize = 'porter unicode61 remove_diacritics 2')");
  const ins = db.prepare("INSERT INTO fts (rowid, words) VALUES (?, ?)");
  db.transaction(() => {
    all.forEach((c, i) => {
      ins.run(i + 1, perChar(c));
    });
  })();
  const search = db.prepare("SELECT rowid FROM fts WHERE fts MATCH ? ORDER BY bm25(fts) LIMIT 10");
  const chars: number[] = [];
  for (const { q, answer } of queries) {
    const words = [...new Set(perChar(q).split(" ").filter(Boolean))];
    const rows = search.all(words.map((w) => `"${w}"`).join(" OR ")) as Array<{ rowid: number }>;
    chars.push(rows.findIndex((r) => r.rowid - 1 === answer));
  }
  db.close();

  console.log(
    `${all.length} Chinese chunks from ${corpusPath("dify-dsl")}, ${queries.length} labelled queries (two 4-character windows of one chunk)`,
  );
  console.log(`BM25 with Intl.Segmenter words   recall ${recall(seg)}`);
  console.log(`BM25 per character (before)      recall ${recall(chars)}`);
  console.log(`example query: ${queries[0]?.q}`);
} finally {
  await stores.close();
}
