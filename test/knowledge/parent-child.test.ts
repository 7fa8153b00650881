/**
 * Parent-child chunking as Dify defines it (chunk_structure hierarchical_model): parents are the paragraph
 * chunks or the full document, children are split from each parent with the subchunk settings, the children
 * are searched and the parent's text is what retrieval returns (with the matched children listed, as Dify's
 * `child_chunks`). Through the real document extractor, on SQLite and in memory, BM25 and hybrid (embeddings
 * from the loopback replay model server).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chunkParentChild } from "../../src/knowledge/chunk.js";
import { ChunkingSchema, DEFAULT_CHUNKING } from "../../src/knowledge/config.js";
import { KnowledgeBases } from "../../src/knowledge/service.js";
import { createLlmService } from "../../src/llm/index.js";
import { openStores, type Stores } from "../../src/store/open.js";
import { TextDocumentService } from "../../src/tools/documents.js";
import { reply, type ReplayServer, startReplayServer } from "../support/replay-server.js";

const HANDBOOK = [
  "Travel expenses.\nTrain tickets are refunded in second class.\nTaxi rides need a receipt and a reason.\nHotels are booked through the travel desk.",
  "Working from home.\nEmployees may work from home two days a week.\nThe team lead approves the days in advance.",
  "Equipment.\nLaptops are replaced every four years.\nA broken monitor is reported to the service desk.",
].join("\n\n");

const file = (name: string, text: string) => ({ name, bytes: new TextEncoder().encode(text), extension: "md", mimeType: "text/markdown" });

/** Bag-of-words vectors hashed into 64 dimensions: texts sharing words are near. */
function embed(text: string): number[] {
  const v = new Array<number>(64).fill(0);
  for (const w of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    let h = 2166136261;
    for (const ch of w) h = Math.imul(h ^ ch.codePointAt(0)!, 16777619);
    v[(h >>> 0) % 64]! += 1;
  }
  return v;
}

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
    const c = ChunkingSchema.parse({ structure: "parent_child", maxLength: 60, overlap: 0, subchunkSeparator: "。", subchunkMaxLength: 20 });
    const tree = chunkParentChild("第一句话很短。第二句话也很短。第三句话。\n\n" + "word ".repeat(30).trim(), c);
    for (const p of tree) expect(p.content.length).toBeLessThanOrEqual(60);
    for (const p of tree) for (const ch of p.children) expect(ch.length).toBeLessThanOrEqual(20);
    expect(tree[0]!.children).toEqual(["第一句话很短", "第二句话也很短", "第三句话"]);
    expect(tree.length).toBeGreaterThan(2);
  });

  it("refuses subchunk settings that cannot work with a typed error", async () => {
    const stores = await openStores(":memory:");
    try {
      const kb = new KnowledgeBases(stores.knowledge, { documents: new TextDocumentService() });
      await expect(kb.create({ name: "x", chunking: { structure: "parent_child", subchunkMaxLength: 50, subchunkOverlap: 50 } })).rejects.toMatchObject({
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
  let dir: string;

  beforeAll(async () => {
    const { mkdtempSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    dir = mkdtempSync(`${tmpdir()}/weft-pc-`);
    model = await startReplayServer();
    model.when((r) => r.api === "openai-embeddings", (r) => reply.embedding((r.body.input as string[]).map(embed)), { times: Infinity });
    stores = await openStores(kind === "memory" ? ":memory:" : `${dir}/kb.db`);
    const llm = createLlmService({
      endpoints: { replay: { provider: "openai-compatible", baseURL: model.openaiBaseURL, apiKey: "k" } },
      default: "replay",
      retry: { maxRetries: 0 },
    });
    kb = new KnowledgeBases(stores.knowledge, {
      documents: new TextDocumentService(),
      llm,
      config: { chunking: DEFAULT_CHUNKING, embedding: { model: "embed-small", provider: "", vectorWeight: 0.5 } },
    });
    await kb.create({ id: "handbook", name: "Handbook", chunking: { structure: "parent_child", parentMode: "paragraph" } });
    await kb.create({ id: "whole", name: "Whole", chunking: { structure: "parent_child", parentMode: "full-doc" } });
    await kb.create({ id: "general", name: "General" });
    await kb.addFile("handbook", file("handbook.md", HANDBOOK));
    await kb.addFile("whole", file("handbook.md", HANDBOOK));
    await kb.addFile("general", file("handbook.md", HANDBOOK));
  }, 60_000);

  afterAll(async () => {
    await stores?.close();
    await model?.close();
    const { rmSync } = await import("node:fs");
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("a query matching one child returns its parent's whole text, scored by the child, with the child listed", async () => {
    const doc = (await stores.knowledge.listDocuments("handbook"))[0]!;
    expect(doc.chunks).toBe(10);
    const [top] = await kb.retrieve({ datasetIds: ["handbook"], query: "who approves working from home days", topK: 3 });
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

  it("the chunk preview of a parent-child base lists the parents, each with the children that would be searched", async () => {
    const p = await kb.preview("handbook", file("handbook.md", HANDBOOK));
    expect(p.total).toBe(3);
    expect(p.chunks[2]).toMatchObject({
      position: 2,
      content: HANDBOOK.split("\n\n")[2],
      children: ["Equipment.", "Laptops are replaced every four years.", "A broken monitor is reported to the service desk."],
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
