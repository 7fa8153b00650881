/**
 * Dify's automatic metadata filtering: the node's metadata model (the replay model server on loopback)
 * proposes conditions from the query; they filter the candidates like manual ones. Hostile proposals are
 * dropped and named, never applied.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runWorkflow } from "../../src/engine/run.js";
import { KnowledgeBases } from "../../src/knowledge/service.js";
import { createLlmService } from "../../src/llm/index.js";
import { openStores, type Stores } from "../../src/store/open.js";
import { TextDocumentService } from "../../src/tools/documents.js";
import { buildWorkflow } from "../support/build.js";
import { type ReplayServer, reply, startReplayServer } from "../support/replay-server.js";

const DOCS: Array<[string, string, Record<string, unknown>]> = [
  ["physics.md", "Lesson plan: Newton's laws of motion, inertia and force.", { kind: "lesson", year: 2024 }],
  ["history.md", "Lesson plan: the Han dynasty and its laws.", { kind: "lesson", year: 2023 }],
  ["lease.md", "Lease: the tenant obeys the laws and pays the deposit.", { kind: "contract", year: 2020 }],
];

let stores: Stores;
let kb: KnowledgeBases;
let llm: ReplayServer;
let service: ReturnType<typeof createLlmService>;

beforeAll(async () => {
  llm = await startReplayServer();
  service = createLlmService({
    endpoints: { ep: { provider: "openai-compatible", baseURL: llm.openaiBaseURL, apiKey: "k", model: "m" } },
    default: "ep",
    retry: { maxRetries: 0 },
  } as Parameters<typeof createLlmService>[0]);
  stores = await openStores(":memory:");
  kb = new KnowledgeBases(stores.knowledge, { documents: new TextDocumentService() });
  await kb.create({ id: "docs", name: "Docs" });
  for (const [name, text, metadata] of DOCS) {
    await kb.addFile(
      "docs",
      { name, bytes: new TextEncoder().encode(text), extension: ".md", mimeType: "text/markdown" },
      { metadata },
    );
  }
});

afterAll(async () => {
  await stores?.close();
  await llm?.close();
});

const wf = (extra: Record<string, unknown>) =>
  buildWorkflow({
    nodes: [
      { id: "start", type: "start", variables: [{ variable: "q", label: "q", type: "text-input", required: true }] },
      {
        id: "kr",
        type: "knowledge-retrieval",
        query_variable_selector: ["start", "q"],
        dataset_ids: ["docs"],
        retrieval_mode: "multiple",
        multiple_retrieval_config: { top_k: 5, score_threshold: null },
        metadata_filtering_mode: "automatic",
        metadata_model_config: { provider: "openai", name: "m", mode: "chat", completion_params: {} },
        ...extra,
      },
      { id: "end", type: "end", outputs: [{ variable: "result", value_selector: ["kr", "result"] }] },
    ],
    edges: [
      ["start", "kr"],
      ["kr", "end"],
    ],
  });

const run = (q: string, extra: Record<string, unknown> = {}) =>
  runWorkflow(wf(extra), { inputs: { q }, services: { knowledge: kb, llm: service } });
const titles = (r: Awaited<ReturnType<typeof run>>) =>
  (r.outputs.result as Array<{ title: string }>).map((p) => p.title).sort();
const notes = (r: Awaited<ReturnType<typeof run>>) =>
  ((r.trace.find((a) => a.nodeId === "kr")?.meta as { notes?: string[] })?.notes ?? []).join("\n");

describe("automatic metadata filtering", () => {
  it("the model's conditions filter the candidates; it is told the fields the candidates carry", async () => {
    llm.when(
      (q) => q.api === "openai-chat",
      reply.json({
        metadata_map: [
          { metadata_field_name: "kind", metadata_field_value: "lesson", comparison_operator: "is" },
          { metadata_field_name: "year", metadata_field_value: 2024, comparison_operator: "≥" },
        ],
      }),
    );
    const r = await run("laws in lessons from 2024 on");
    expect(r.status).toBe("succeeded");
    expect(titles(r)).toEqual(["physics.md"]);
    const asked = JSON.stringify(llm.last()!.body.messages);
    expect(asked).toContain("- kind (string)");
    expect(asked).toContain("- year (number)");
    expect(asked).toContain("Query: laws in lessons from 2024 on");
    expect(notes(r)).toContain('automatic metadata filter: kind is "lesson" AND year ≥ 2024');
  });

  it("fields the candidates lack, unknown operators and object values are dropped and named; the rest applies", async () => {
    llm.when(
      (q) => q.api === "openai-chat",
      reply.json({
        metadata_map: [
          { metadata_field_name: "author", metadata_field_value: "Ann", comparison_operator: "is" },
          { metadata_field_name: "kind", metadata_field_value: "lesson", comparison_operator: "DROP TABLE" },
          { metadata_field_name: "kind", metadata_field_value: { $ne: 1 }, comparison_operator: "is" },
          { metadata_field_name: "kind", metadata_field_value: "contract", comparison_operator: "is" },
        ],
      }),
    );
    const r = await run("contracts about laws");
    expect(titles(r)).toEqual(["lease.md"]);
    expect(notes(r)).toMatch(/dropped from the model's filter.*author.*DROP TABLE.*\$ne/);
  });

  it("an answer with no metadata_map filters nothing and says so", async () => {
    llm.when((q) => q.api === "openai-chat", reply.text("I think you want lessons."), { times: 2 });
    const r = await run("laws");
    expect(r.error).toBeUndefined();
    expect(titles(r)).toEqual(["history.md", "lease.md", "physics.md"]);
    expect(notes(r)).toContain("the model's answer has no metadata_map list; nothing filtered");
  });

  it("without a metadata model nothing is filtered and the trace says what is missing", async () => {
    const r = await run("laws", { metadata_model_config: null });
    expect(r.status).toBe("succeeded");
    expect(titles(r)).toHaveLength(3);
    expect(notes(r)).toContain("automatic metadata filtering needs metadata_model_config");
  });
});
