/**
 * The studio's retrieval testing over HTTP on an embedded base: `mode` keyword, vector and hybrid each rank
 * by what they say (embeddings from the loopback replay model server, deterministic: texts about cats point
 * one way, the rest the other), and the upload limit the studio checks files against is the server's.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KnowledgeConfigSchema } from "../../src/knowledge/config.js";
import { createLlmService } from "../../src/llm/index.js";
import { type ReplayServer, reply, startReplayServer } from "../support/replay-server.js";
import { startTestServer, type TestServer } from "./helpers.js";

const TIMEOUT = 60_000;
let llm: ReplayServer;
let s: TestServer;

beforeAll(async () => {
  llm = await startReplayServer();
  llm.when(
    (q) => q.api === "openai-embeddings",
    (q) => reply.embedding((q.body.input as string[]).map((t) => (/cat|feline/i.test(t) ? [1, 0] : [0, 1]))),
    { times: Infinity },
  );
  const service = createLlmService({
    endpoints: {
      ep: { provider: "openai-compatible", baseURL: llm.openaiBaseURL, apiKey: "k", model: "m", embeddingModel: "e" },
    },
    default: "ep",
    retry: { maxRetries: 0 },
  } as Parameters<typeof createLlmService>[0]);
  s = await startTestServer({
    services: { llm: service },
    knowledgeConfig: KnowledgeConfigSchema.parse({ embedding: { model: "e" } }),
    maxBodyBytes: 1_000_000,
  });
}, TIMEOUT);
afterAll(async () => {
  await s?.stop();
  await llm?.close();
});

type Found = { mode: string; result: Array<{ title: string; metadata: { score: number } }> };

async function upload(name: string, text: string) {
  const form = new FormData();
  form.append("file", new Blob([text], { type: "text/markdown" }), name);
  const res = await s.api("/api/knowledge/fables/documents", { method: "POST", body: form });
  expect(res.status, await res.clone().text()).toBe(201);
}

describe("search modes on an embedded base", () => {
  it("keyword ranks by words, vector by meaning, hybrid weighs both; the default is hybrid", {
    timeout: TIMEOUT,
  }, async () => {
    const made = await s.api("/api/knowledge", { method: "POST", json: { id: "fables", name: "Fables" } });
    expect(await made.json()).toMatchObject({ embeddingModel: "e" });
    await upload("lion.md", "The lion is a big cat that hunts at dusk.");
    await upload("mouse.md", "A mouse ran past the sleeping hunter.");
    const search = async (mode?: string) => {
      const res = await s.api("/api/knowledge/fables/search", {
        method: "POST",
        json: { query: "feline mouse", top_k: 2, ...(mode ? { mode } : {}) },
      });
      expect(res.status).toBe(200);
      return (await res.json()) as Found;
    };
    // "feline" is in no document: words find only the mouse; meaning finds the lion.
    const keyword = await search("keyword");
    expect(keyword.mode).toBe("keyword");
    expect(keyword.result.map((r) => r.title)).toEqual(["mouse.md"]);
    const vector = await search("vector");
    expect(vector.result[0]!.title).toBe("lion.md");
    expect(vector.result[0]!.metadata.score).toBeCloseTo(1, 5);
    const hybrid = await search();
    expect(hybrid.mode).toBe("hybrid");
    expect(hybrid.result.map((r) => r.title).sort()).toEqual(["lion.md", "mouse.md"]);
    // The query embeds as a cat text: the lion gets 0.7 × cosine 1 and no keyword share; the mouse gets cosine 0 and
    // 0.3 × its keyword score: it shares "mouse" with the query, one of its five keywords, all equally rare among the
    // two candidates ("feline" is in none, so it weighs nothing), a TF-IDF cosine of 1/√5.
    expect(hybrid.result.map((r) => [r.title, Number(r.metadata.score.toFixed(5))])).toEqual([
      ["lion.md", 0.7],
      ["mouse.md", Number((0.3 / Math.sqrt(5)).toFixed(5))],
    ]);
  });

  it("the list names the largest upload the server takes; a bigger body is refused with 413 request.too_large", {
    timeout: TIMEOUT,
  }, async () => {
    const list = (await (await s.api("/api/knowledge")).json()) as { limits: { max_document_bytes: number } };
    expect(list.limits.max_document_bytes).toBe(1_000_000 - 16 * 1024);
    const form = new FormData();
    form.append("file", new Blob([new Uint8Array(1_100_000).fill(97)]), "big.txt");
    const res = await s.api("/api/knowledge/fables/preview", { method: "POST", body: form });
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("request.too_large");
  });
});
