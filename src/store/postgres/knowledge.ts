import { WeftError } from "../../ir/errors.js";
import type { KnowledgeStore } from "../knowledge.js";

/**
 * Knowledge bases are embedded in SQLite (FTS5) only so far; on PostgreSQL every use says so, with the
 * way out, instead of pretending a base is empty. (A tsvector/ts_rank store is the missing piece.)
 */
function unsupported(): never {
  throw new WeftError(
    "knowledge.backend_unsupported",
    "knowledge bases are not available on a PostgreSQL database yet; keep them in a SQLite database (--db weft.db) or use the knowledge-retrieval node against a SQLite deployment",
  );
}

export class PostgresKnowledgeStore implements KnowledgeStore {
  createBase: KnowledgeStore["createBase"] = async () => unsupported();
  getBase: KnowledgeStore["getBase"] = async () => unsupported();
  listBases: KnowledgeStore["listBases"] = async () => unsupported();
  deleteBase: KnowledgeStore["deleteBase"] = async () => unsupported();
  addDocument: KnowledgeStore["addDocument"] = async () => unsupported();
  listDocuments: KnowledgeStore["listDocuments"] = async () => unsupported();
  deleteDocument: KnowledgeStore["deleteDocument"] = async () => unsupported();
  searchText: KnowledgeStore["searchText"] = async () => unsupported();
  embedded: KnowledgeStore["embedded"] = async () => unsupported();
}
