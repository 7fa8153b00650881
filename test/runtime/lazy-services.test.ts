/**
 * buildServices makes the built-in tools and the knowledge bases' retrieval code on first use (their modules were
 * start-up cost of every `weft run`; test/cli/run-loads.test.ts pins that a run without such nodes loads neither).
 * What they serve is the same as when they were built eagerly.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KnowledgeBases } from "../../src/knowledge/service.js";
import { attachKnowledge, type BuiltServices, buildServices, StoreKnowledge } from "../../src/runtime/services.js";
import { servingDiagnostics } from "../../src/runtime/serving.js";
import { openStores, type Stores } from "../../src/store/open.js";
import { tempDir } from "../support/per-file.js";

let services: BuiltServices;
let stores: Stores;

beforeAll(async () => {
  const dir = tempDir("lazy-services");
  services = await buildServices({ http: { allowPrivate: false, allowHosts: [] }, files: { dir }, baseDir: dir });
  stores = await openStores(":memory:");
  attachKnowledge(services, stores.knowledge);
});

afterAll(async () => {
  await services.close();
  await stores.close();
});

describe("services built on first use", () => {
  it("the built-in tools: served, described, listed and invoked through the tool service", async () => {
    expect(await services.tools.serves("time", "current_time")).toEqual({ by: "builtin" });
    expect(await services.tools.serves("nobody", "nothing")).toBeUndefined();
    const local = await services.tools.builtin();
    expect(await services.tools.builtin()).toBe(local);
    expect(local.files).toBe(services.files);
    expect((await services.tools.list()).map((t) => t.name)).toContain("time__current_time");
    const r = await services.tools.invoke({
      providerId: "time",
      toolName: "current_time",
      parameters: { timezone: "UTC", format: "%Y" },
    });
    expect(r.text).toMatch(/^\d{4}$/);
  });

  it("the knowledge bases: one KnowledgeBases on the attached store, made by the first retrieval", async () => {
    const knowledge = services.knowledge as StoreKnowledge;
    expect(knowledge).toBeInstanceOf(StoreKnowledge);
    expect(knowledge.store).toBe(stores.knowledge);
    const bases = await knowledge.bases();
    expect(bases).toBeInstanceOf(KnowledgeBases);
    expect(await knowledge.bases()).toBe(bases);
    const base = await bases.create({ id: "notes", name: "Notes" });
    const text = "Weft runs Dify workflows on its own engine.";
    await bases.addText(base, { name: "weft.txt", mimeType: "text/plain", size: text.length }, text);
    const hits = await knowledge.retrieve({ query: "Dify workflows", datasetIds: ["notes"], topK: 3 });
    expect(hits.map((h) => h.content).join(" ")).toContain("Dify workflows");
  });

  it("servingDiagnostics looks knowledge bases up in the store without loading anything else", async () => {
    const wf = {
      name: "kb",
      mode: "workflow",
      nodes: [{ id: "k", type: "knowledge-retrieval", title: "K", config: { dataset_ids: ["notes", "gone"] } }],
      edges: [],
    } as unknown as Parameters<typeof servingDiagnostics>[0];
    const d = await servingDiagnostics(wf, services);
    expect(d.map((x) => [x.code, x.message.includes("gone"), x.message.includes("notes")])).toEqual([
      ["knowledge.unserved", true, false],
    ]);
  });
});
