/**
 * Parent-child chunking as Dify defines it (chunk_structure hierarchical_model): parents are the paragraph
 * chunks or the full document, children are split from each parent with the subchunk settings, the children
 * are searched and the parent's text is what retrieval returns (with the matched children listed, as Dify's
 * `child_chunks`). Through the real document extractor, on SQLite and in memory, BM25 and hybrid (embeddings
 * from the loopback replay model server).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chunkParentChild } from "../../src/knowledge/chunk.js";
import { RerankConfigSchema } from "../../src/knowledge/config.js";
import { KnowledgeBases } from "../../src/knowledge/service.js";
import { createLlmService } from "../../src/llm/index.js";
import { ChunkingSchema, DEFAULT_CHUNKING } from "../../src/store/chunking.js";
import { openStores, type Stores } from "../../src/store/open.js";
import { TextDocumentService } from "../../src/tools/documents.js";
import { serveHashedEmbeddings } from "../support/hashed-embeddings.js";
import { type ReplayServer, startReplayServer } from "../support/replay-server.js";
import { type RerankServer, scoredBy, startRerankServer } from "../support/rerank-server.js";

const HANDBOOK = [
  "Travel expenses.\nTrain tickets are refunded in second class.\nTaxi rides need a receipt and a reason.\nHotels are booked through the travel desk.",
  "Working from home.\nEmployees may work from home two days a week.\nThe team lead approves the days in advance.",
  "Equipment.\nLaptops are replaced every four years.\nA broken monitor is reported to the service desk.",
].join("\n\n");

const file = (name: string, text: string) => ({
  name,
  bytes: new TextEncoder().encode(text),
  extension: "md",
  mimeType: "text/markdown",
});

describe("chunkParentChild", () => {
  it("paragraph mode: each paragraph a parent, its lines the children; full-doc: one parent", () => {
    const c = ChunkingSchema.parse({ structure: "parent_child", maxLength: 500 });
    const tree = chunkParentChild(HANDBOOK, c);
    expect(tree).toHaveLength(3);
    expect(tree[1]!.content).toBe(HANDBOOK.split("\n\n")[1]);
    expect(tree[1]!.children).toEqual([
      "Working from home.",
      "Employees may work from home two days a week.",
      "The team lead approves the days in advance.",
    ]);
    const full = chunkParentChild(HANDBOOK, { ...c, parentMode: "full-doc" });
    expect(full).toHaveLength(1);
    expect(full[0]!.content).toBe(HANDBOOK);
    expect(full[0]!.children).toHaveLength(10);
  });

  it("splits long parents and long children by length, and drops a child's leading sentence mark as Dify does", () => {
    const c = ChunkingSchema.parse({
      structure: "parent_child",
      maxLength: 60,
      overlap: 0,
      subchunkSeparator: "。",
      subchunkMaxLength: 20,
    });
    const tree = chunkParentChild(`第一句话很短。第二句话也很短。第三句话。\n\n${"word ".repeat(30).trim()}`, c);
    for (const p of tree) expect(p.content.length).toBeLessThanOrEqual(60);
    for (const p of tree) for (const ch of p.children) expect(ch.length).toBeLessThanOrEqual(20);
    expect(tree[0]!.children).toEqual(["第一句话很短", "第二句话也很短", "第三句话"]);
    expect(tree.length).toBeGreaterThan(2);
  });

  it("refuses subchunk settings that cannot work with a typed error", async () => {
    const stores = await openStores(":memory:");
    try {
      const kb = new KnowledgeBases(stores.knowledge, { documents: new TextDocumentService() });
      await expect(
        kb.create({ name: "x", chunking: { structure: "parent_child", subchunkMaxLength: 50, subchunkOverlap: 50 } }),
      ).rejects.toMatchObject({
        code: "knowledge.invalid_chunking",
        message: expect.stringContaining("subchunkOverlap"),
      });
    } finally {
      await stores.close();
    }
  });
});

describe.each(["memory", "sqlite"] as const)("parent-child retrieval (%s)", (kind) => {
  let stores: Stores;
  let kb: KnowledgeBases;
  let model: ReplayServer;
  let rerank: RerankServer;
  let dir: string;
  let llm: ReturnType<typeof createLlmService>;

  beforeAll(async () => {
    const { mkdtempSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    dir = mkdtempSync(`${tmpdir()}/weft-pc-`);
    model = await startReplayServer();
    serveHashedEmbeddings(model);
    stores = await openStores(kind === "memory" ? ":memory:" : `${dir}/kb.db`);
    llm = createLlmService({
      endpoints: { replay: { provider: "openai-compatible", baseURL: model.openaiBaseURL, apiKey: "k" } },
      default: "replay",
      retry: { maxRetries: 0 },
    });
    kb = new KnowledgeBases(stores.knowledge, {
      documents: new TextDocumentService(),
      llm,
      config: { chunking: DEFAULT_CHUNKING, embedding: { model: "embed-small", provider: "", vectorWeight: 0.5 } },
    });
    await kb.create({
      id: "handbook",
      name: "Handbook",
      chunking: { structure: "parent_child", parentMode: "paragraph" },
    });
    await kb.create({ id: "whole", name: "Whole", chunking: { structure: "parent_child", parentMode: "full-doc" } });
    await kb.create({ id: "general", name: "General" });
    await kb.addFile("handbook", file("handbook.md", HANDBOOK));
    await kb.addFile("whole", file("handbook.md", HANDBOOK));
    await kb.addFile("general", file("handbook.md", HANDBOOK));
  }, 60_000);

  afterAll(async () => {
    await stores?.close();
    await model?.close();
    await rerank?.close();
    const { rmSync } = await import("node:fs");
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("a query matching one child returns its parent's whole text, scored by the child, with the child listed", async () => {
    const doc = (await stores.knowledge.listDocuments("handbook"))[0]!;
    expect(doc.chunks).toBe(10);
    const [top] = await kb.retrieve({
      datasetIds: ["handbook"],
      query: "who approves working from home days",
      topK: 3,
    });
    expect(top!.content).toBe(HANDBOOK.split("\n\n")[1]);
    const children = top!.metadata.child_chunks as Array<{ content: string; score: number }>;
    expect(children.map((c) => c.content)).toContain("The team lead approves the days in advance.");
    expect(top!.metadata.score).toBe(Math.max(...children.map((c) => c.score)));
    expect(top!.metadata.segment_position).toBe(2);
    // The embeddings went through the replay server (hybrid retrieval over the children).
    expect(model.requests.some((r) => r.api === "openai-embeddings")).toBe(true);
  });

  it("children of one parent come back as that parent once; top_k counts children as Dify's does", async () => {
    const hits = await kb.search(["handbook"], "taxi receipt train tickets hotels travel", { topK: 4 });
    const parents = hits.filter((h) => h.content.startsWith("Travel expenses."));
    expect(parents).toHaveLength(1);
    expect(parents[0]!.childChunks!.length).toBeGreaterThanOrEqual(2);
    expect(hits.length).toBeLessThanOrEqual(4);
  });

  it("rerank scores the child chunks as Dify does: children's text sent, top_k and score_threshold count children, then parents", async () => {
    const CHILD_SCORES: Record<string, number> = {
      "Taxi rides need a receipt and a reason.": 0.9,
      "Employees may work from home two days a week.": 0.8,
      "The team lead approves the days in advance.": 0.7,
      "Laptops are replaced every four years.": 0.6,
    };
    rerank = await startRerankServer(scoredBy((d) => CHILD_SCORES[d] ?? 0.05));
    const reranking = new KnowledgeBases(stores.knowledge, {
      documents: new TextDocumentService(),
      llm,
      config: {
        chunking: DEFAULT_CHUNKING,
        embedding: { model: "embed-small", provider: "", vectorWeight: 0.5 },
        rerank: RerankConfigSchema.parse({ baseURL: rerank.baseURL }),
      },
    });
    const ask = (topK: number, scoreThreshold?: number) =>
      reranking.retrieve({
        datasetIds: ["handbook"],
        query: "taxi receipt, working from home days, laptops",
        topK,
        scoreThreshold,
        rerank: { model: "rerank-1" },
      });
    const paragraphs = HANDBOOK.split("\n\n");

    const top3 = await ask(3);
    const sent = rerank.requests[0]!.body;
    // The children went to the model, each its own text (a parent would be several lines), asked for top_k of them.
    expect(sent.documents).toEqual(expect.arrayContaining(Object.keys(CHILD_SCORES)));
    for (const d of sent.documents as string[]) expect(d).not.toContain("\n");
    expect(sent.top_n).toBe(3);
    // The three best children belong to two parents: each parent once, scored by its best child, children listed by score.
    expect(top3.map((p) => p.content)).toEqual([paragraphs[0], paragraphs[1]]);
    expect(top3.map((p) => p.metadata.score)).toEqual([0.9, 0.8]);
    expect(
      (top3[1]!.metadata.child_chunks as Array<{ content: string; score: number }>).map((c) => [c.content, c.score]),
    ).toEqual([
      ["Employees may work from home two days a week.", 0.8],
      ["The team lead approves the days in advance.", 0.7],
    ]);
    // score_threshold applies to the children's rerank scores: the 0.7 child is cut, its parent stays by the 0.8 one.
    const strict = await ask(10, 0.75);
    expect(strict.map((p) => p.metadata.score)).toEqual([0.9, 0.8]);
    expect((strict[1]!.metadata.child_chunks as unknown[]).length).toBe(1);
    // top_k 4 reaches the laptop child: a third parent.
    expect((await ask(4)).map((p) => p.content)).toEqual([paragraphs[0], paragraphs[1], paragraphs[2]]);
  });

  it("the chunk preview of a parent-child base lists the parents, each with the children that would be searched", async () => {
    const p = await kb.preview("handbook", file("handbook.md", HANDBOOK));
    expect(p.total).toBe(3);
    expect(p.chunks[2]).toMatchObject({
      position: 2,
      content: HANDBOOK.split("\n\n")[2],
      children: [
        "Equipment.",
        "Laptops are replaced every four years.",
        "A broken monitor is reported to the service desk.",
      ],
    });
    expect((await kb.preview("general", file("handbook.md", HANDBOOK))).chunks[0]!.children).toBeUndefined();
  });

  it("full-doc mode returns the whole document for a matching child; general chunking returns the chunk itself", async () => {
    const [whole] = await kb.search(["whole"], "broken monitor service desk", { topK: 1 });
    expect(whole!.content).toBe(HANDBOOK);
    expect(whole!.childChunks![0]!.content).toBe("A broken monitor is reported to the service desk.");
    const [general] = await kb.search(["general"], "broken monitor service desk", { topK: 1 });
    expect(general!.content).toBe(HANDBOOK.split("\n\n")[2]);
    expect(general!.childChunks).toBeUndefined();
  });
});
