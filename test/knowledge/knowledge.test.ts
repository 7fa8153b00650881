/**
 * A knowledge base built from real documents of the corpus (a DOCX lease, two PDF fables, two Markdown
 * teaching plans, one in Chinese), in the run store's database, answering queries with the right passage
 * first; the knowledge-retrieval node serving Dify's dataset_ids with Dify's output shape.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runWorkflow } from "../../src/engine/run.js";
import { KnowledgeBases } from "../../src/knowledge/service.js";
import { openStores, type Stores } from "../../src/store/open.js";
import { TextDocumentService } from "../../src/tools/documents.js";
import { extensionOf, mimeForExtension } from "../../src/tools/mime.js";
import { buildWorkflow } from "../support/build.js";
import { corpusPath } from "../support/corpus.js";

const CASES = corpusPath("chat2workflow", "case_files");
const DOCS: Array<[file: string, metadata: Record<string, unknown>]> = [
  ["residential-lease-agreement.docx", { kind: "contract", year: 2020 }],
  ["the-three-little-pigs.pdf", { kind: "story", year: 2015 }],
  ["The-Lion-and-the-Mouse.pdf", { kind: "story", year: 2012 }],
  ["teaching_plan_physics.md", { kind: "lesson", year: 2024 }],
  ["teaching_plan_history.md", { kind: "lesson", year: 2023 }],
];

let stores: Stores;
let kb: KnowledgeBases;

function fileOf(name: string) {
  const extension = extensionOf(name);
  return {
    name,
    bytes: new Uint8Array(readFileSync(`${CASES}/${name}`)),
    extension,
    mimeType: mimeForExtension(extension) ?? "application/octet-stream",
  };
}

beforeAll(async () => {
  stores = await openStores(":memory:");
  kb = new KnowledgeBases(stores.knowledge, { documents: new TextDocumentService() });
  await kb.create({ id: "library", name: "Library", chunking: { maxLength: 600, overlap: 60 } });
  for (const [name, metadata] of DOCS) await kb.addFile("library", fileOf(name), { metadata });
}, 120_000);

afterAll(async () => {
  await stores?.close();
});

describe("knowledge bases from real documents", () => {
  it("stores every document with its chunks", async () => {
    const docs = await stores.knowledge.listDocuments("library");
    expect(docs.map((d) => d.name).sort()).toEqual(DOCS.map(([n]) => n).sort());
    for (const d of docs) expect(d.chunks).toBeGreaterThan(0);
    // The 17 kB lease is split; the one-page fables are not.
    expect(docs.find((d) => d.name.endsWith(".docx"))!.chunks).toBeGreaterThan(10);
    const base = (await stores.knowledge.getBase("library"))!;
    expect(base.chunking).toMatchObject({ maxLength: 600, overlap: 60, separator: "\n\n" });
    expect(base.documents).toBe(5);
  });

  const queries: Array<[query: string, document: string, passage: RegExp]> = [
    [
      "how much is the security deposit and when is it returned",
      "residential-lease-agreement.docx",
      /security deposit/i,
    ],
    ["working smoke detector batteries", "residential-lease-agreement.docx", /SMOKE DETECTORS/],
    ["may the tenant sublet or assign the lease", "residential-lease-agreement.docx", /ASSIGNMENT AND SUBLETTING/],
    ["wolf huffed and puffed and blew the house of straw down", "the-three-little-pigs.pdf", /huffed and puffed/],
    ["mouse gnawed the rope of the hunter's net", "The-Lion-and-the-Mouse.pdf", /gnawed/],
    ["惯性 质量 牛顿第一定律", "teaching_plan_physics.md", /惯性/],
    ["推恩令 诸侯王", "teaching_plan_history.md", /推恩令/],
  ];
  for (const [query, document, passage] of queries) {
    it(`"${query}" finds ${document} first`, async () => {
      const hits = await kb.search(["library"], query, { topK: 3 });
      expect(hits[0]?.documentName).toBe(document);
      expect(hits[0]!.content).toMatch(passage);
      for (let i = 1; i < hits.length; i++) expect(hits[i - 1]!.score).toBeGreaterThanOrEqual(hits[i]!.score);
    });
  }

  it("score_threshold cuts weak matches; unknown words find nothing; an unknown base is a typed error", async () => {
    const all = await kb.search(["library"], "wolf", { topK: 10 });
    expect(all.length).toBeGreaterThan(0);
    const strong = await kb.search(["library"], "wolf", { topK: 10, scoreThreshold: all[0]!.score });
    expect(strong.length).toBeGreaterThan(0);
    expect(strong.every((h) => h.score >= all[0]!.score)).toBe(true);
    expect(await kb.search(["library"], "zyzzyva quixotic", { topK: 3 })).toEqual([]);
    // FTS5 syntax in a query is words, not operators.
    expect((await kb.search(["library"], 'wolf" OR NEAR(', { topK: 3 }))[0]?.documentName).toBe(
      "the-three-little-pigs.pdf",
    );
    await expect(kb.search(["nope"], "x")).rejects.toMatchObject({
      code: expect.stringMatching(/not_found|not_configured/),
    });
  });

  it("a partial chunking override keeps the base's other settings", async () => {
    await kb.create({ id: "small", name: "Small", chunking: { maxLength: 200, overlap: 20, separator: "\n" } });
    const doc = await kb.addFile("small", fileOf("the-three-little-pigs.pdf"), { chunking: { overlap: 0 } });
    // With maxLength 200 kept, the 1.4 kB story is several chunks; had the override reset it to 1024, two.
    expect(doc.chunks).toBeGreaterThanOrEqual(6);
    await expect(
      kb.addFile("small", fileOf("the-three-little-pigs.pdf"), { chunking: { overlap: 500 } }),
    ).rejects.toMatchObject({
      code: "knowledge.invalid_chunking",
    });
  });

  it("the knowledge-retrieval node serves dataset_ids with Dify's result shape and metadata filters", async () => {
    const node = (extra: Record<string, unknown>) =>
      buildWorkflow({
        nodes: [
          {
            id: "start",
            type: "start",
            variables: [{ variable: "q", label: "q", type: "text-input", required: true }],
          },
          {
            id: "kr",
            type: "knowledge-retrieval",
            query_variable_selector: ["start", "q"],
            dataset_ids: ["library"],
            retrieval_mode: "multiple",
            multiple_retrieval_config: { top_k: 2, score_threshold: null },
            ...extra,
          },
          { id: "end", type: "end", outputs: [{ variable: "result", value_selector: ["kr", "result"] }] },
        ],
        edges: [
          ["start", "kr"],
          ["kr", "end"],
        ],
      });
    const r = await runWorkflow(node({}), {
      inputs: { q: "the lion was caught in a net" },
      services: { knowledge: kb },
    });
    expect(r.status).toBe("succeeded");
    const result = r.outputs.result as Array<{ content: string; title: string; metadata: Record<string, unknown> }>;
    expect(result.length).toBeLessThanOrEqual(2);
    expect(result[0]!.title).toBe("The-Lion-and-the-Mouse.pdf");
    expect(result[0]!.metadata).toMatchObject({
      _source: "knowledge",
      dataset_id: "library",
      dataset_name: "Library",
      document_name: "The-Lion-and-the-Mouse.pdf",
      doc_metadata: { kind: "story", year: 2012 },
    });
    expect(typeof result[0]!.metadata.score).toBe("number");

    // Only lessons: the query's best passage (a fable) is filtered out by the metadata condition.
    const filtered = await runWorkflow(
      node({
        metadata_filtering_mode: "manual",
        metadata_filtering_conditions: {
          logical_operator: "and",
          conditions: [{ name: "kind", comparison_operator: "is", value: "contract" }],
        },
      }),
      { inputs: { q: "the house was very strong" }, services: { knowledge: kb } },
    );
    expect(filtered.status).toBe("succeeded");
    const kept = filtered.outputs.result as Array<{ title: string }>;
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.every((h) => h.title === "residential-lease-agreement.docx")).toBe(true);

    const missing = await runWorkflow(node({ dataset_ids: ["0d5f1c2e-unknown"] }), {
      inputs: { q: "x" },
      services: { knowledge: kb },
    });
    expect(missing.status).toBe("failed");
    expect(missing.error?.message).toContain("0d5f1c2e-unknown");
    expect(missing.error?.message).toContain("weft kb");
  });
});

describe("retrieval reads a base's settings, never its counts", () => {
  it("search, retrieve, preview and add never count a base's chunks (getBase / listBases are for showing them)", async () => {
    // The store as the service sees it, with the counting reads made to fail: before, every search called
    // getBase, which ran a COUNT(*) over the base's chunks (on PostgreSQL as costly as the search at 100k chunks).
    const counted: string[] = [];
    const guarded = new Proxy(stores.knowledge, {
      get(target, prop, receiver) {
        if (prop === "getBase" || prop === "listBases")
          return async () => {
            counted.push(String(prop));
            throw new Error(`${String(prop)} counts the base's chunks`);
          };
        const v = Reflect.get(target, prop, receiver);
        return typeof v === "function" ? v.bind(target) : v;
      },
    });
    const quiet = new KnowledgeBases(guarded, { documents: new TextDocumentService() });
    expect((await quiet.search(["library"], "security deposit", { topK: 2 }))[0]?.documentName).toBe(
      "residential-lease-agreement.docx",
    );
    expect((await quiet.retrieve({ datasetIds: ["library"], query: "huffed and puffed", topK: 1 }))[0]?.title).toBe(
      "the-three-little-pigs.pdf",
    );
    expect((await quiet.preview("library", fileOf("the-three-little-pigs.pdf"))).total).toBeGreaterThan(0);
    await expect(quiet.search(["library", "nope"], "x")).rejects.toMatchObject({
      code: "knowledge.dataset_not_found",
      details: { datasetIds: ["nope"] },
    });
    expect(counted).toEqual([]);
  });
});
