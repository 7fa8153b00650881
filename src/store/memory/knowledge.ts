import type Database from "better-sqlite3";
import type { KnowledgeStore } from "../knowledge.js";

/**
 * The knowledge bases of `:memory:`: SQLite's FTS5 and sqlite-vec in an in-process database, opened on the first
 * call. Loading better-sqlite3 and the vec0 extension and creating the tables cost ~40 ms of CPU, which a
 * `weft run --db :memory:` of a workflow without a knowledge node would otherwise pay at start-up (issue 33).
 */
export class LazyMemoryKnowledgeStore implements KnowledgeStore {
  private opened: Promise<{ db: Database.Database; store: KnowledgeStore }> | undefined;
  private closed = false;

  private store(): Promise<KnowledgeStore> {
    this.opened ??= (async () => {
      const [{ default: Sqlite }, { SqliteKnowledgeStore }] = await Promise.all([
        import("better-sqlite3"),
        import("../sqlite/knowledge.js"),
      ]);
      const db = new Sqlite(":memory:");
      return { db, store: new SqliteKnowledgeStore(db) };
    })();
    return this.opened.then(({ db, store }) => {
      // The stores' close() ended the database: a late call fails as it did on the closed database.
      if (this.closed && db.open) db.close();
      return store;
    });
  }

  /** Ends the database if one was opened; a call after this fails as on a closed SQLite database. */
  async close(): Promise<void> {
    this.closed = true;
    if (!this.opened) return;
    const { db } = await this.opened;
    if (db.open) db.close();
  }

  createBase: KnowledgeStore["createBase"] = async (b) => (await this.store()).createBase(b);
  getBase: KnowledgeStore["getBase"] = async (id) => (await this.store()).getBase(id);
  describeBases: KnowledgeStore["describeBases"] = async (ids) => (await this.store()).describeBases(ids);
  listBases: KnowledgeStore["listBases"] = async () => (await this.store()).listBases();
  deleteBase: KnowledgeStore["deleteBase"] = async (id) => (await this.store()).deleteBase(id);
  addDocument: KnowledgeStore["addDocument"] = async (baseId, doc, chunks) =>
    (await this.store()).addDocument(baseId, doc, chunks);
  listDocuments: KnowledgeStore["listDocuments"] = async (baseId) => (await this.store()).listDocuments(baseId);
  deleteDocument: KnowledgeStore["deleteDocument"] = async (baseId, documentId) =>
    (await this.store()).deleteDocument(baseId, documentId);
  searchText: KnowledgeStore["searchText"] = async (baseIds, query, limit) =>
    (await this.store()).searchText(baseIds, query, limit);
  searchVector: KnowledgeStore["searchVector"] = async (baseIds, vector, limit) =>
    (await this.store()).searchVector(baseIds, vector, limit);
  chunkVectors: KnowledgeStore["chunkVectors"] = async (chunkIds) => (await this.store()).chunkVectors(chunkIds);
}
