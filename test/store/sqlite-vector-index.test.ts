/**
 * The SQLite knowledge store's vector index (sqlite-vec) on a database written before it existed: a file whose
 * kb_chunks rows carry embeddings but no vec0 rows is indexed when opened, so its vectors are found again (and
 * once only: opening it twice does not index a chunk twice).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, expect, it } from "vitest";
import { openStores } from "../../src/store/open.js";

const dir = mkdtempSync(join(tmpdir(), "weft-vec-upgrade-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const vec = (v: number[]) => Buffer.from(new Float32Array(v).buffer);

// The knowledge tables as the release before the index wrote them (no parent_id, no vec_dim, no vec0 tables).
const OLD_SCHEMA = `
CREATE TABLE kb_bases (id TEXT PRIMARY KEY, name TEXT NOT NULL, description TEXT NOT NULL,
  chunking TEXT NOT NULL, embedding_model TEXT, created_at INTEGER NOT NULL);
CREATE TABLE kb_documents (id TEXT PRIMARY KEY, base_id TEXT NOT NULL, name TEXT NOT NULL,
  mime_type TEXT NOT NULL, size INTEGER NOT NULL, metadata TEXT NOT NULL, created_at INTEGER NOT NULL);
CREATE TABLE kb_chunks (rowid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, base_id TEXT NOT NULL,
  document_id TEXT NOT NULL, position INTEGER NOT NULL, content TEXT NOT NULL, embedding BLOB);
CREATE VIRTUAL TABLE kb_fts USING fts5(words, tokenize = 'porter unicode61 remove_diacritics 2');`;

it("indexes the embeddings of a database from before the vector index when it is opened, once", async () => {
  const path = join(dir, "old.db");
  const old = new Database(path);
  old.exec(OLD_SCHEMA);
  old.prepare("INSERT INTO kb_bases VALUES ('kb', 'Old', '', '{}', 'embed-1', 1)").run();
  old.prepare("INSERT INTO kb_documents VALUES ('d1', 'kb', 'old.md', 'text/markdown', 1, '{}', 1)").run();
  const chunk = old.prepare(
    "INSERT INTO kb_chunks (id, base_id, document_id, position, content, embedding) VALUES (?, 'kb', 'd1', ?, ?, ?)",
  );
  chunk.run("d1-1", 1, "north", vec([1, 0, 0]));
  chunk.run("d1-2", 2, "east", vec([0, 1, 0]));
  chunk.run("d1-3", 3, "no vector", null);
  old.close();

  for (let open = 0; open < 2; open++) {
    const stores = await openStores(path);
    try {
      const hits = await stores.knowledge.searchVector(["kb"], [0.9, 0.2, 0], 5);
      expect(hits.map((h) => h.content)).toEqual(["north", "east"]);
      expect(hits[0]!.score).toBeGreaterThan(0.97);
      // Chunking settings added later read as their defaults.
      expect((await stores.knowledge.getBase("kb"))!.chunking).toMatchObject({
        structure: "general",
        separator: "\n\n",
      });
    } finally {
      await stores.close();
    }
  }
  const db = new Database(path);
  try {
    const { n } = db.prepare("SELECT COUNT(*) AS n FROM kb_vec_3_rowids").get() as { n: number };
    expect(n).toBe(2);
  } finally {
    db.close();
  }
});
