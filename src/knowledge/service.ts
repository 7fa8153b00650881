/**
 * Knowledge bases behind the engine's KnowledgeService: adding documents (extract → chunk → embed →
 * store) and retrieving for the knowledge-retrieval node, `weft kb search` and the API. Retrieval is BM25
 * over the store's full-text index; a base embedded with a model is searched hybrid: vector and keyword
 * scores weighted as Dify's weighted_score reranking does.
 */
import { NotConfiguredError, WeftError } from "../ir/errors.js";
import type { DocumentService, FileValue, KnowledgeService, LlmService } from "../ir/services.js";
import { type Chunking, ChunkingSchema } from "../store/chunking.js";
import {
  type ChunkHit,
  cosine,
  type KnowledgeBaseInfo,
  type KnowledgeBaseRecord,
  type KnowledgeDocumentRecord,
  type KnowledgeStore,
} from "../store/knowledge.js";
import { chunkParentChild, chunkText } from "./chunk.js";
import { DEFAULT_KNOWLEDGE_CONFIG, type KnowledgeConfig } from "./config.js";
import { keywordScores } from "./keyword-score.js";
import { RerankClient } from "./rerank.js";

export class KnowledgeError extends WeftError {}

export interface Passage {
  content: string;
  title: string;
  metadata: Record<string, unknown>;
}

export interface SearchOptions {
  topK?: number;
  scoreThreshold?: number;
  /** The vector share of hybrid scores for this search (default: the config's embedding.vectorWeight). */
  vectorWeight?: number;
  /**
   * Which ranking to use (the studio's hit testing compares them): `keyword` BM25 alone, `vector` cosine alone
   * (embedded bases only), `hybrid` both weighted. Unset: hybrid for embedded bases, else keyword.
   */
  mode?: SearchMode;
}

export type SearchMode = "keyword" | "vector" | "hybrid";

/** What a document would become with some chunking settings: its chunks, nothing stored. */
export interface ChunkPreview {
  chunking: Chunking;
  /** Characters of extracted text. */
  characters: number;
  total: number;
  /** The first chunks (at most the preview's limit), in order. */
  chunks: Array<{ position: number; content: string; characters: number; children?: string[] }>;
}

type UploadedFile = { name: string; bytes: Uint8Array; mimeType: string; extension: string };

/** The node's request, and for the API's hit testing a ranking to use (the node leaves it to the base). */
export type RetrieveRequest = Parameters<KnowledgeService["retrieve"]>[0] & { mode?: SearchMode };

export class KnowledgeBases implements KnowledgeService {
  constructor(
    readonly store: KnowledgeStore,
    private readonly deps: { documents?: DocumentService; llm?: LlmService; config?: KnowledgeConfig } = {},
  ) {}

  private get config(): KnowledgeConfig {
    return this.deps.config ?? DEFAULT_KNOWLEDGE_CONFIG;
  }

  async create(o: {
    name: string;
    id?: string;
    description?: string;
    chunking?: Partial<Chunking>;
  }): Promise<KnowledgeBaseRecord> {
    const chunking = settings({ ...this.config.chunking, ...o.chunking });
    return this.store.createBase({ ...o, chunking, embeddingModel: this.config.embedding?.model ?? null });
  }

  private async baseOrFail(id: string): Promise<KnowledgeBaseInfo> {
    const [b] = await this.store.describeBases([id]);
    if (!b) throw notFound([id]);
    return b;
  }

  private async embed(texts: string[], model: string): Promise<number[][]> {
    const llm = this.deps.llm;
    if (!llm?.embed) {
      throw new NotConfiguredError(
        "knowledge.embedding_not_configured",
        `knowledge base embeddings need the model "${model}", but no model endpoint with embeddings is configured (see the llm section of weft.config.json)`,
        { model },
      );
    }
    const provider = this.config.embedding?.provider ?? "";
    const out: number[][] = [];
    for (let i = 0; i < texts.length; i += 64)
      out.push(...(await llm.embed(texts.slice(i, i + 64), { provider, name: model })));
    return out;
  }

  /** The largest file the document extractor reads (documents.maxBytes), when it says. */
  documentLimit(): number | undefined {
    const limits = (this.deps.documents as { limits?: { maxBytes?: unknown } } | undefined)?.limits;
    return typeof limits?.maxBytes === "number" ? limits.maxBytes : undefined;
  }

  private async extract(file: UploadedFile): Promise<string> {
    const docs = this.deps.documents;
    if (!docs) throw new KnowledgeError("knowledge.no_extractor", "no document extractor is configured");
    const value: FileValue = {
      type: "document",
      transfer_method: "local_file",
      filename: file.name,
      extension: file.extension,
      mime_type: file.mimeType,
      size: file.bytes.byteLength,
    };
    return docs.extract(value, file.bytes);
  }

  /**
   * The chunks a file would be split into with the base's settings and the given overrides; nothing is stored.
   * With parent-child chunking the entries are the parents, each with the children that would be searched.
   */
  async preview(
    baseId: string,
    file: UploadedFile,
    o: { chunking?: Partial<Chunking>; limit?: number } = {},
  ): Promise<ChunkPreview> {
    const base = await this.baseOrFail(baseId);
    const chunking = settings({ ...base.chunking, ...o.chunking });
    const text = await this.extract(file);
    const tree =
      chunking.structure === "parent_child"
        ? chunkParentChild(text, chunking)
        : chunkText(text, chunking).map((content) => ({ content, children: undefined }));
    if (tree.length === 0)
      throw new KnowledgeError("knowledge.empty_document", `${file.name} has no text to index`, { file: file.name });
    return {
      chunking,
      characters: text.length,
      total: tree.length,
      chunks: tree.slice(0, o.limit ?? 50).map(({ content, children }, position) => ({
        position,
        content,
        characters: content.length,
        ...(children ? { children } : {}),
      })),
    };
  }

  /** Extract a file's text (every format the document extractor reads), chunk it with the base's settings, store it. */
  async addFile(
    baseId: string,
    file: UploadedFile,
    o: { chunking?: Partial<Chunking>; metadata?: Record<string, unknown> } = {},
  ): Promise<KnowledgeDocumentRecord> {
    const base = await this.baseOrFail(baseId);
    const text = await this.extract(file);
    return this.addText(base, { name: file.name, mimeType: file.mimeType, size: file.bytes.byteLength }, text, o);
  }

  /**
   * Chunk a document's text with the base's settings (general: chunks; parent_child: parents and the children
   * that are searched), embed what is searched when the base is embedded, store it.
   */
  async addText(
    base: KnowledgeBaseInfo,
    doc: { name: string; mimeType: string; size: number },
    text: string,
    o: { chunking?: Partial<Chunking>; metadata?: Record<string, unknown> } = {},
  ): Promise<KnowledgeDocumentRecord> {
    const c = settings({ ...base.chunking, ...o.chunking });
    const tree = c.structure === "parent_child" ? chunkParentChild(text, c) : undefined;
    const chunks = tree
      ? tree.flatMap((p, parent) => p.children.map((content) => ({ content, parent })))
      : chunkText(text, c).map((content) => ({ content, parent: undefined }));
    if (chunks.length === 0)
      throw new KnowledgeError("knowledge.empty_document", `${doc.name} has no text to index`, { file: doc.name });
    const vectors = base.embeddingModel
      ? await this.embed(
          chunks.map((x) => x.content),
          base.embeddingModel,
        )
      : undefined;
    return this.store.addDocument(
      base.id,
      { ...doc, metadata: o.metadata, parents: tree?.map((p) => p.content) },
      chunks.map((x, i) => ({ content: x.content, embedding: vectors?.[i], parent: x.parent })),
    );
  }

  /** BM25 (and vectors, for embedded bases) over the given bases; best first, cut at topK and threshold. */
  async search(baseIds: string[], query: string, o: SearchOptions = {}): Promise<NamedHit[]> {
    const { hits, names } = await this.candidates(baseIds, query, o);
    const kept = hits
      .filter((h) => o.scoreThreshold === undefined || o.scoreThreshold === null || h.score >= o.scoreThreshold)
      .sort((a, b) => b.score - a.score)
      .slice(0, o.topK ?? 4);
    return named(withParents(kept), names);
  }

  /**
   * The chunks a search ranks (children, for parent-child bases), unsorted and uncut, with the bases' names.
   * The bases are read without their document and chunk counts: a search has no use for them, and counting a
   * large base's chunks cost as much as the search itself.
   */
  private async candidates(
    baseIds: string[],
    query: string,
    o: SearchOptions,
  ): Promise<{ hits: ChunkHit[]; names: Map<string, string> }> {
    const bases = await this.store.describeBases(baseIds);
    const missing = baseIds.filter((id) => !bases.some((b) => b.id === id));
    if (missing.length > 0) throw notFound(missing);
    const pool = Math.max((o.topK ?? 4) * 4, 20);
    const embedded = bases.filter((b) => b.embeddingModel);
    const mode = o.mode ?? (embedded.length > 0 ? "hybrid" : "keyword");
    if (mode !== "keyword" && embedded.length === 0) {
      throw new KnowledgeError(
        "knowledge.not_embedded",
        `${mode} search needs embedded chunks, but knowledge base ${baseIds.join(", ")} has no embedding model (a base is embedded when it is created with knowledge.embedding set in weft.config.json); use keyword search`,
        { datasetIds: baseIds, mode },
      );
    }
    const keyword = mode === "vector" ? [] : await this.store.searchText(baseIds, query, pool);
    let hits: ChunkHit[] = keyword;
    if (mode === "vector") hits = await this.hybrid(embedded, [], query, pool, 1);
    else if (mode === "hybrid") hits = await this.hybrid(embedded, keyword, query, pool, o.vectorWeight);
    return { hits, names: new Map(bases.map((b) => [b.id, b.name])) };
  }

  /**
   * Dify's weighted_score: every candidate (keyword and vector hits together) scored vectorWeight × cosine +
   * (1 − vectorWeight) × its keyword score. Both sides are computed here from what is stored — the cosine from the
   * chunk's own vector (also for a keyword hit the vector index did not return: LSH is approximate), the keyword
   * score from the texts (keyword-score.ts) — so the same candidates score the same on every store and index.
   */
  private async hybrid(
    bases: KnowledgeBaseInfo[],
    keyword: ChunkHit[],
    query: string,
    pool: number,
    weight?: number,
  ): Promise<ChunkHit[]> {
    const w = weight ?? this.config.embedding?.vectorWeight ?? 0.7;
    const byModel = new Map<string, string[]>();
    for (const b of bases) byModel.set(b.embeddingModel!, [...(byModel.get(b.embeddingModel!) ?? []), b.id]);
    const candidates = new Map<string, ChunkHit>(keyword.map((k) => [k.chunkId, k]));
    const cosines = new Map<string, number>();
    const queryVectorOfBase = new Map<string, number[]>();
    for (const [model, ids] of byModel) {
      const [qv] = await this.embed([query], model);
      for (const id of ids) queryVectorOfBase.set(id, qv!);
      for (const c of await this.store.searchVector(ids, qv!, pool)) {
        if (!candidates.has(c.chunkId)) candidates.set(c.chunkId, c);
        cosines.set(c.chunkId, Math.max(0, c.score));
      }
    }
    const unscored = keyword.filter((k) => !cosines.has(k.chunkId) && queryVectorOfBase.has(k.baseId));
    const vectors = await this.store.chunkVectors(unscored.map((k) => k.chunkId));
    for (const k of unscored) {
      const v = vectors.get(k.chunkId);
      if (v) cosines.set(k.chunkId, Math.max(0, cosine(queryVectorOfBase.get(k.baseId)!, v)));
    }
    const hits = [...candidates.values()];
    const kw =
      w < 1
        ? keywordScores(
            query,
            hits.map((h) => h.content),
          )
        : hits.map(() => 0);
    return hits.map((h, i) => ({ ...h, score: w * (cosines.get(h.chunkId) ?? 0) + (1 - w) * kw[i]! }));
  }

  /** The knowledge-retrieval node's call: Dify's `result` items. */
  async retrieve(req: RetrieveRequest): Promise<Passage[]> {
    const hits = req.rerank ? await this.reranked(req, req.rerank) : await this.search(req.datasetIds, req.query, req);
    return hits.map((h) => ({
      content: h.content,
      title: h.documentName,
      metadata: {
        ...(h.childChunks ? { child_chunks: h.childChunks } : {}),
        _source: "knowledge",
        dataset_id: h.baseId,
        dataset_name: h.baseName,
        document_id: h.documentId,
        document_name: h.documentName,
        data_source_type: "upload_file",
        segment_id: h.chunkId,
        segment_position: h.position,
        retriever_from: "workflow",
        score: h.score,
        doc_metadata: h.metadata,
      },
    }));
  }

  /**
   * Dify's reranking_model mode: candidates from every base merged and scored by the rerank model against the
   * query, the threshold applied to those scores, the best topK kept. As in Dify, what is reranked is what was
   * retrieved — for a parent-child base the child chunks, their own text sent to the model, topK and the
   * threshold counting children — and only then are children replaced by their parent (scored by its best
   * child). Without a rerank endpoint the search's own order stands and the caller is told so (the run log
   * says which model was asked for and how to add one).
   */
  private async reranked(req: RetrieveRequest, asked: { model?: string; provider?: string }): Promise<NamedHit[]> {
    const cfg = this.config.rerank;
    const client = cfg ? new RerankClient(cfg) : undefined;
    const model = client?.modelFor(asked.model);
    if (!client || !model) {
      req.onNote?.(
        `reranking with ${asked.model ? `model ${asked.model}` : "a rerank model"} was asked for, but no rerank endpoint is configured (knowledge.rerank in weft.config.json): passages are in retrieval order`,
      );
      return this.search(req.datasetIds, req.query, req);
    }
    const breadth = Math.max(req.topK * 4, 20);
    const { hits, names } = await this.candidates(req.datasetIds, req.query, {
      topK: breadth,
      vectorWeight: req.vectorWeight,
    });
    const candidates = hits.sort((a, b) => b.score - a.score).slice(0, breadth);
    const scores = await client.rerank(
      req.query,
      candidates.map((c) => c.content),
      { model, topN: req.topK },
    );
    const kept = scores
      .filter((s) => req.scoreThreshold === undefined || req.scoreThreshold === null || s.score >= req.scoreThreshold)
      .sort((a, b) => b.score - a.score)
      .slice(0, req.topK)
      .map((s) => ({ ...candidates[s.index]!, score: s.score }));
    return named(withParents(kept), names);
  }
}

/** Chunking settings as given (flags, API, config), checked together: overlap below maxLength and so on. */
function settings(c: Partial<Chunking>): Chunking {
  const r = ChunkingSchema.safeParse(c);
  if (!r.success) {
    const i = r.error.issues[0]!;
    throw new KnowledgeError("knowledge.invalid_chunking", `chunking ${i.path.join(".")}: ${i.message}`, {
      chunking: c,
    });
  }
  return r.data;
}

function notFound(ids: string[]): NotConfiguredError {
  const first = ids[0]!;
  return new NotConfiguredError(
    "knowledge.dataset_not_found",
    `no knowledge base with id ${ids.join(", ")} in this database; create it and add its documents: weft kb create NAME --id ${first} && weft kb add ${first} FILE…`,
    { datasetIds: ids },
  );
}

/** A matched child of parent-child chunking, as Dify lists it under its parent (`child_chunks`). */
export interface ChildChunkMatch {
  id: string;
  content: string;
  position: number;
  score: number;
}

export type GroupedHit = ChunkHit & { childChunks?: ChildChunkMatch[] };
export type NamedHit = GroupedHit & { baseName: string };

const named = (hits: GroupedHit[], names: Map<string, string>): NamedHit[] =>
  hits.map((h) => ({ ...h, baseName: names.get(h.baseId) ?? h.baseId }));

/**
 * Dify's grouping of child hits (RetrievalService's parent-child formatting): the children that matched are
 * replaced by their parent chunk — its text is the context returned — once per parent, scored by its best child,
 * with the matched children listed under it. Chunks of general chunking pass through. Best first.
 */
export function withParents(hits: ChunkHit[]): GroupedHit[] {
  const out: GroupedHit[] = [];
  const byParent = new Map<string, GroupedHit>();
  for (const h of hits) {
    if (!h.parent) {
      out.push(h);
      continue;
    }
    const child: ChildChunkMatch = { id: h.chunkId, content: h.content, position: h.position, score: h.score };
    const seen = byParent.get(h.parent.id);
    if (seen) {
      seen.childChunks!.push(child);
      seen.score = Math.max(seen.score, h.score);
      continue;
    }
    const { parent, ...rest } = h;
    const g: GroupedHit = {
      ...rest,
      chunkId: parent.id,
      position: parent.position,
      content: parent.content,
      childChunks: [child],
    };
    byParent.set(parent.id, g);
    out.push(g);
  }
  return out.sort((a, b) => b.score - a.score);
}
