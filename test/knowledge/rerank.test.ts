/**
 * Dify's two ways of ordering multiple retrieval, on a real knowledge base: a rerank model reached over
 * HTTP (a Cohere/Jina-style `/rerank` server on loopback that scores by a script), and weighted_score's
 * vector weight over hybrid scores (embeddings from the replay model server).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runWorkflow } from "../../src/engine/run.js";
import { KnowledgeConfigSchema } from "../../src/knowledge/config.js";
import { KnowledgeBases } from "../../src/knowledge/service.js";
import { createLlmService } from "../../src/llm/index.js";
import { openStores, type Stores } from "../../src/store/open.js";
import { TextDocumentService } from "../../src/tools/documents.js";
import { buildWorkflow } from "../support/build.js";
import { type ReplayServer, reply, startReplayServer } from "../support/replay-server.js";
import { type RerankScript, type RerankServer, startRerankServer } from "../support/rerank-server.js";

const DOCS: Record<string, string> = {
  "lion.md": "The lion slept in the sun. A lion is a big cat. The lion roared at the lion cubs.",
  "mouse.md": "A small mouse gnawed the ropes of the net and set the lion free.",
  "pigs.md": "Three little pigs built houses of straw, sticks and bricks.",
};

let rerank: RerankServer;

let stores: Stores;
const file = (name: string) => ({
  name,
  bytes: new TextEncoder().encode(DOCS[name]),
  extension: ".md",
  mimeType: "text/markdown",
});

beforeAll(async () => {
  rerank = await startRerankServer();
  stores = await openStores(":memory:");
  const kb = new KnowledgeBases(stores.knowledge, { documents: new TextDocumentService() });
  await kb.create({ id: "fables", name: "Fables" });
  for (const name of Object.keys(DOCS)) await kb.addFile("fables", file(name));
});

afterAll(async () => {
  await stores?.close();
  await rerank?.close();
});

const kbWith = (rerank?: Record<string, unknown>) =>
  new KnowledgeBases(stores.knowledge, {
    documents: new TextDocumentService(),
    config: KnowledgeConfigSchema.parse(rerank ? { rerank } : {}),
  });

const wf = (multiple: Record<string, unknown>) =>
  buildWorkflow({
    nodes: [
      { id: "start", type: "start", variables: [{ variable: "q", label: "q", type: "text-input", required: true }] },
      {
        id: "kr",
        type: "knowledge-retrieval",
        query_variable_selector: ["start", "q"],
        dataset_ids: ["fables"],
        retrieval_mode: "multiple",
        multiple_retrieval_config: { top_k: 2, score_threshold: null, ...multiple },
      },
      { id: "end", type: "end", outputs: [{ variable: "result", value_selector: ["kr", "result"] }] },
    ],
    edges: [
      ["start", "kr"],
      ["kr", "end"],
    ],
  });

const RERANK = {
  reranking_enable: true,
  reranking_mode: "reranking_model",
  reranking_model: { provider: "langgenius/cohere/cohere", model: "rerank-english-v3.0" },
};
type Passage = { title: string; metadata: Record<string, unknown> };

/** The script: the mouse document is what the query is about, whatever BM25 says. */
const mouseFirst = (body: any) => ({
  status: 200,
  json: {
    results: (body.documents as string[])
      .map((d, index) => ({ index, relevance_score: d.includes("mouse") ? 0.93 : d.includes("lion") ? 0.41 : 0.02 }))
      .sort((a, b) => b.relevance_score - a.relevance_score)
      .slice(0, body.top_n),
  },
});

describe("rerank through a /rerank endpoint", () => {
  it("reorders the candidates by the model's scores, which become the passages' scores", async () => {
    rerank.script = mouseFirst;
    rerank.requests.length = 0;
    process.env.WEFT_TEST_RERANK_KEY = "rk-123";
    const kb = kbWith({ baseURL: rerank.baseURL, apiKeyEnv: "WEFT_TEST_RERANK_KEY" });
    // Retrieval alone puts the lion first (the word is everywhere in it).
    const plain = await runWorkflow(wf({}), { inputs: { q: "who freed the lion" }, services: { knowledge: kb } });
    expect((plain.outputs.result as Passage[])[0]!.title).toBe("lion.md");
    expect(rerank.requests).toHaveLength(0);

    const r = await runWorkflow(wf(RERANK), { inputs: { q: "who freed the lion" }, services: { knowledge: kb } });
    expect(r.status).toBe("succeeded");
    const result = r.outputs.result as Passage[];
    expect(result.map((p) => p.title)).toEqual(["mouse.md", "lion.md"]);
    expect(result.map((p) => p.metadata.score)).toEqual([0.93, 0.41]);
    expect(rerank.requests).toHaveLength(1);
    expect(rerank.requests[0]!.body).toMatchObject({
      model: "rerank-english-v3.0",
      query: "who freed the lion",
      top_n: 2,
    });
    expect(rerank.requests[0]!.body.documents).toHaveLength(2); // both documents that mention the lion are candidates
    expect(rerank.requests[0]!.auth).toBe("Bearer rk-123");
  });

  it("score_threshold applies to the rerank scores; the config's model overrides the node's", async () => {
    rerank.script = mouseFirst;
    rerank.requests.length = 0;
    const kb = kbWith({ baseURL: rerank.baseURL, model: "jina-reranker-v2" });
    const r = await runWorkflow(wf({ ...RERANK, score_threshold: 0.5 }), {
      inputs: { q: "who freed the lion" },
      services: { knowledge: kb },
    });
    expect((r.outputs.result as Passage[]).map((p) => p.title)).toEqual(["mouse.md"]);
    expect(rerank.requests[0]!.body.model).toBe("jina-reranker-v2");
    expect(rerank.requests[0]!.auth).toBeUndefined();
  });

  it("a hostile or failing endpoint fails the node with a typed error naming it", async () => {
    const kb = kbWith({ baseURL: rerank.baseURL });
    const cases: Array<[RerankScript, string, RegExp]> = [
      [
        () => ({ status: 200, json: { results: [{ index: 7, relevance_score: 1 }] } }),
        "knowledge.rerank_invalid_response",
        /scored document 7, but 2 were sent/,
      ],
      [
        () => ({ status: 200, json: { results: [{ index: 0, relevance_score: "high" }] } }),
        "knowledge.rerank_invalid_response",
        /relevance_score/,
      ],
      [() => ({ status: 503, json: { error: "overloaded" } }), "knowledge.rerank_failed", /answered 503/],
    ];
    for (const [s, code, message] of cases) {
      rerank.script = s;
      const r = await runWorkflow(wf(RERANK), { inputs: { q: "who freed the lion" }, services: { knowledge: kb } });
      expect(r.status).toBe("failed");
      expect(r.error).toMatchObject({ code });
      expect(r.error?.message).toMatch(message);
      expect(r.error?.message).toContain(rerank.baseURL);
    }
  });

  it("without a rerank endpoint the retrieval order stands and the run's trace says so", async () => {
    const r = await runWorkflow(wf(RERANK), { inputs: { q: "who freed the lion" }, services: { knowledge: kbWith() } });
    expect(r.status).toBe("succeeded");
    expect((r.outputs.result as Passage[])[0]!.title).toBe("lion.md");
    const notes = (r.trace.find((a) => a.nodeId === "kr")?.meta as { notes?: string[] } | undefined)?.notes ?? [];
    expect(notes.join("\n")).toMatch(
      /model rerank-english-v3\.0 was asked for, but no rerank endpoint is configured \(knowledge\.rerank in weft\.config\.json\)/,
    );
  });
});

describe("weighted_score: the node's vector weight", () => {
  let llm: ReplayServer;
  let estores: Stores;
  beforeAll(async () => {
    llm = await startReplayServer();
    // Deterministic embeddings: "cat" texts point one way, everything else the other.
    llm.when(
      (q) => q.api === "openai-embeddings",
      (q) => reply.embedding((q.body.input as string[]).map((t) => (/cat|feline/i.test(t) ? [1, 0] : [0, 1]))),
      { times: Infinity },
    );
    estores = await openStores(":memory:");
  });
  afterAll(async () => {
    await estores?.close();
    await llm?.close();
  });

  it("vector_weight 1 ranks by meaning, 0 by keywords, as Dify's weights say", async () => {
    const service = createLlmService({
      endpoints: {
        ep: { provider: "openai-compatible", baseURL: llm.openaiBaseURL, apiKey: "k", model: "m", embeddingModel: "e" },
      },
      default: "ep",
      retry: { maxRetries: 0 },
    } as Parameters<typeof createLlmService>[0]);
    const kb = new KnowledgeBases(estores.knowledge, {
      documents: new TextDocumentService(),
      llm: service,
      config: KnowledgeConfigSchema.parse({ embedding: { model: "e" } }),
    });
    await kb.create({ id: "fables", name: "Fables" });
    for (const name of Object.keys(DOCS)) await kb.addFile("fables", file(name));
    const weights = (v: number) => ({
      reranking_enable: true,
      reranking_mode: "weighted_score",
      weights: { vector_setting: { vector_weight: v }, keyword_setting: { keyword_weight: 1 - v } },
    });
    // "feline" is in no document: keywords find only "mouse"; meaning finds the lion ("a big cat").
    const q = "feline mouse";
    const byMeaning = await runWorkflow(wf(weights(1)), { inputs: { q }, services: { knowledge: kb } });
    expect((byMeaning.outputs.result as Passage[])[0]!.title).toBe("lion.md");
    const byWords = await runWorkflow(wf(weights(0)), { inputs: { q }, services: { knowledge: kb } });
    expect((byWords.outputs.result as Passage[])[0]!.title).toBe("mouse.md");
  });
});
