/**
 * The HTTP side of issue 14 on a real server: /api/knowledge (create, add real documents in base64,
 * search in Dify's result shape, typed errors), and runs given `files` (sys.files) and `allow_warnings`.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exportDify } from "../../src/dsl/dify/index.js";
import { DirFileService } from "../../src/tools/files.js";
import { buildWorkflow } from "../support/build.js";
import { corpusPath } from "../support/corpus.js";
import { startTestServer, type TestServer } from "./helpers.js";

const TIMEOUT = 120_000;
const doc = (name: string) => readFileSync(corpusPath("chat2workflow", "case_files", name)).toString("base64");

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
  // The file store lives in the test's own temp dir.
  s.deps.services.files = new DirFileService(`${s.dir}/files`);
}, TIMEOUT);
afterAll(async () => {
  await s?.stop();
});

async function waitRun(runId: string): Promise<Record<string, any>> {
  for (let i = 0; i < 600; i++) {
    const r = (await (await s.api(`/api/runs/${runId}`)).json()) as Record<string, any>;
    if (r.status !== "running" && r.status !== "queued") return r;
    await new Promise((res) => setTimeout(res, 100));
  }
  throw new Error(`run ${runId} did not finish`);
}

describe("/api/knowledge", () => {
  it("creates a base, adds a DOCX and a PDF, and searches with Dify's result shape", { timeout: TIMEOUT }, async () => {
    const created = await s.api("/api/knowledge", {
      method: "POST",
      json: { name: "Lease", id: "lease", chunking: { maxLength: 500 } },
    });
    expect(created.status).toBe(201);
    expect(await created.json()).toMatchObject({
      id: "lease",
      chunking: { maxLength: 500, overlap: 50, separator: "\n\n" },
    });
    for (const filename of ["residential-lease-agreement.docx", "the-three-little-pigs.pdf"]) {
      const add = await s.api("/api/knowledge/lease/documents", {
        method: "POST",
        json: { filename, data: doc(filename), metadata: { source: filename } },
      });
      expect(add.status).toBe(201);
    }
    const docs = (await (await s.api("/api/knowledge/lease/documents")).json()) as {
      documents: Array<{ name: string; chunks: number }>;
    };
    expect(docs.documents).toHaveLength(2);
    const search = await s.api("/api/knowledge/lease/search", {
      method: "POST",
      json: { query: "smoke detectors batteries", top_k: 2 },
    });
    expect(search.status).toBe(200);
    const { result } = (await search.json()) as {
      result: Array<{ content: string; title: string; metadata: Record<string, any> }>;
    };
    expect(result).toHaveLength(2);
    expect(result[0]!.title).toBe("residential-lease-agreement.docx");
    expect(result[0]!.content).toContain("SMOKE DETECTORS");
    expect(result[0]!.metadata).toMatchObject({
      dataset_id: "lease",
      doc_metadata: { source: "residential-lease-agreement.docx" },
    });
  });

  it("parent-child chunking through the API: children searched, the parent returned with its matched children", {
    timeout: TIMEOUT,
  }, async () => {
    const created = await s.api("/api/knowledge", {
      method: "POST",
      json: {
        name: "Handbook",
        id: "handbook",
        chunking: { structure: "parent_child", parentMode: "full-doc", subchunkMaxLength: 100 },
      },
    });
    expect(created.status).toBe(201);
    expect(await created.json()).toMatchObject({
      chunking: { structure: "parent_child", parentMode: "full-doc", subchunkMaxLength: 100 },
    });
    const text =
      "Travel.\nTrain tickets are refunded in second class.\n\nLeave.\nSick days are reported to the team lead before nine.";
    const add = await s.api("/api/knowledge/handbook/documents", {
      method: "POST",
      json: { filename: "handbook.md", data: Buffer.from(text).toString("base64") },
    });
    expect(add.status).toBe(201);
    const search = await s.api("/api/knowledge/handbook/search", {
      method: "POST",
      json: { query: "sick days", top_k: 3 },
    });
    const { result } = (await search.json()) as { result: Array<{ content: string; metadata: Record<string, any> }> };
    expect(result).toHaveLength(1);
    expect(result[0]!.content).toBe(text);
    expect(result[0]!.metadata.child_chunks.map((c: { content: string }) => c.content)).toContain(
      "Sick days are reported to the team lead before nine.",
    );
    const bad = await s.api("/api/knowledge", { method: "POST", json: { name: "b", chunking: { structure: "tree" } } });
    expect(bad.status).toBe(400);
  });

  it("answers typed errors: taken id 409, unknown base 404, bad chunking 400, unreadable file 422, no key 401", {
    timeout: TIMEOUT,
  }, async () => {
    expect((await s.api("/api/knowledge", { method: "POST", json: { name: "again", id: "lease" } })).status).toBe(409);
    const unknown = await s.api("/api/knowledge/nope/search", { method: "POST", json: { query: "x" } });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as any).error.code).toBe("kb.not_found");
    const bad = await s.api("/api/knowledge", {
      method: "POST",
      json: { name: "b", chunking: { maxLength: 100, overlap: 200 } },
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as any).error.message).toContain("overlap");
    const junk = await s.api("/api/knowledge/lease/documents", {
      method: "POST",
      json: { filename: "broken.pdf", data: Buffer.from("not a pdf at all").toString("base64") },
    });
    expect(junk.status).toBe(422);
    expect((await fetch(`${s.url}/api/knowledge`)).status).toBe(401);
  });
});

describe("/api/knowledge for the studio: multipart, chunk preview, search modes, import warnings", () => {
  const lease = () =>
    new Blob([readFileSync(corpusPath("chat2workflow", "case_files", "residential-lease-agreement.docx"))]);
  const form = (fields: Record<string, string | [Blob, string]>) => {
    const f = new FormData();
    for (const [k, v] of Object.entries(fields)) typeof v === "string" ? f.append(k, v) : f.append(k, v[0], v[1]);
    return f;
  };
  const errorOf = async (res: Response) => ((await res.json()) as { error: { code: string; message: string } }).error;

  it("previews the chunks a multipart upload would make without storing them, then stores them alike", {
    timeout: TIMEOUT,
  }, async () => {
    expect((await s.api("/api/knowledge", { method: "POST", json: { name: "Studio", id: "studio" } })).status).toBe(
      201,
    );
    const chunking = JSON.stringify({ maxLength: 300, overlap: 20 });
    const pre = await s.api("/api/knowledge/studio/preview", {
      method: "POST",
      body: form({ file: [lease(), "lease.docx"], chunking }),
    });
    expect(pre.status).toBe(200);
    const preview = (await pre.json()) as {
      total: number;
      chunking: { maxLength: number };
      chunks: Array<{ position: number; content: string; characters: number }>;
    };
    expect(preview.chunking.maxLength).toBe(300);
    expect(preview.total).toBeGreaterThan(5);
    expect(preview.chunks[0]!.position).toBe(0);
    expect(Math.max(...preview.chunks.map((c) => c.characters))).toBeLessThanOrEqual(300);
    // Nothing stored by a preview.
    expect(((await (await s.api("/api/knowledge/studio")).json()) as { chunks: number }).chunks).toBe(0);
    const add = await s.api("/api/knowledge/studio/documents", {
      method: "POST",
      body: form({ file: [lease(), "lease.docx"], chunking, metadata: '{"kind":"lease"}' }),
    });
    expect(add.status).toBe(201);
    expect(await add.json()).toMatchObject({ name: "lease.docx", chunks: preview.total, metadata: { kind: "lease" } });
    const search = await s.api("/api/knowledge/studio/search", {
      method: "POST",
      json: { query: "smoke detectors batteries", top_k: 3 },
    });
    const found = (await search.json()) as {
      mode: string;
      result: Array<{ content: string; metadata: { score: number } }>;
    };
    expect(found.mode).toBe("keyword");
    expect(found.result[0]!.content).toMatch(/smoke detectors/i);
    expect(found.result[0]!.metadata.score).toBeGreaterThan(0);
  });

  it("answers typed errors naming the field: no file, bad chunking JSON, an unknown field, vector search without embeddings", {
    timeout: TIMEOUT,
  }, async () => {
    const noFile = await s.api("/api/knowledge/studio/preview", { method: "POST", body: form({ chunking: "{}" }) });
    expect(noFile.status).toBe(400);
    expect((await errorOf(noFile)).code).toBe("request.missing_file");
    const badJson = await s.api("/api/knowledge/studio/documents", {
      method: "POST",
      body: form({ file: [lease(), "l.docx"], chunking: "{maxLength:" }),
    });
    expect(badJson.status).toBe(400);
    expect(await errorOf(badJson)).toMatchObject({
      code: "request.invalid_json",
      message: expect.stringContaining("chunking"),
    });
    const badValue = await s.api("/api/knowledge/studio/preview", {
      method: "POST",
      body: form({ file: [lease(), "l.docx"], chunking: '{"maxLength":"big"}' }),
    });
    expect(badValue.status).toBe(400);
    expect(await errorOf(badValue)).toMatchObject({
      code: "request.invalid",
      message: expect.stringContaining("chunking.maxLength"),
    });
    const overlap = await s.api("/api/knowledge/studio/preview", {
      method: "POST",
      body: form({ file: [lease(), "l.docx"], chunking: '{"maxLength":100,"overlap":150}' }),
    });
    expect(overlap.status).toBe(400);
    expect((await errorOf(overlap)).code).toBe("knowledge.invalid_chunking");
    const extra = await s.api("/api/knowledge/studio/documents", {
      method: "POST",
      body: form({ file: [lease(), "l.docx"], tags: "x" }),
    });
    expect(extra.status).toBe(400);
    expect((await errorOf(extra)).message).toContain("tags");
    const vector = await s.api("/api/knowledge/studio/search", {
      method: "POST",
      json: { query: "smoke", mode: "vector" },
    });
    expect(vector.status).toBe(400);
    expect((await errorOf(vector)).code).toBe("knowledge.not_embedded");
    const unknownBase = await s.api("/api/knowledge/nope/preview", {
      method: "POST",
      body: form({ file: [lease(), "l.docx"] }),
    });
    expect(unknownBase.status).toBe(404);
    // The studio's documents list holds after all of these: the one good upload, nothing half-added.
    const docs = (await (await s.api("/api/knowledge/studio/documents")).json()) as { documents: unknown[] };
    expect(docs.documents).toHaveLength(1);
  });

  it("an import names the knowledge bases the app needs that this server does not have", {
    timeout: TIMEOUT,
  }, async () => {
    const wf = buildWorkflow({
      nodes: [
        { id: "start", type: "start", variables: [{ variable: "q", label: "q", type: "text-input", required: true }] },
        {
          id: "kr",
          type: "knowledge-retrieval",
          title: "Find",
          query_variable_selector: ["start", "q"],
          dataset_ids: ["studio", "elsewhere-kb"],
          retrieval_mode: "multiple",
          multiple_retrieval_config: { top_k: 2 },
        },
        { id: "end", type: "end", outputs: [{ variable: "r", value_selector: ["kr", "result"] }] },
      ],
      edges: [
        ["start", "kr"],
        ["kr", "end"],
      ],
    });
    const res = await s.api("/api/apps/import", { method: "POST", body: exportDify({ ...wf, name: "rag" }) });
    expect(res.status).toBe(201);
    const body = (await res.json()) as {
      app: { id: string };
      diagnostics: Array<{ code: string; nodeId?: string; message: string }>;
    };
    const unserved = body.diagnostics.filter((d) => d.code === "knowledge.unserved");
    expect(unserved).toHaveLength(1);
    expect(unserved[0]).toMatchObject({ nodeId: "kr", message: expect.stringContaining("elsewhere-kb") });
    expect(unserved[0]!.message).not.toContain("studio,");
    // Importing into the existing app says the same.
    const again = await s.api(`/api/apps/${body.app.id}/import`, {
      method: "POST",
      body: exportDify({ ...wf, name: "rag" }),
    });
    const againBody = (await again.json()) as { diagnostics: Array<{ code: string }> };
    expect(againBody.diagnostics.map((d) => d.code)).toContain("knowledge.unserved");
  });
});

describe("runs with files and warnings", () => {
  it("`files` become sys.files; `allow_warnings` runs what Dify would run and says what it downgraded", {
    timeout: TIMEOUT,
  }, async () => {
    const wf = buildWorkflow({
      nodes: [
        { id: "start", type: "start", variables: [{ variable: "n", label: "n", type: "number", required: true }] },
        {
          id: "if",
          type: "if-else",
          cases: [
            {
              case_id: "big",
              logical_operator: "and",
              conditions: [{ variable_selector: ["start", "n"], comparison_operator: ">", value: "5" }],
            },
          ],
        },
        {
          id: "a",
          type: "template-transform",
          template: "{% for f in fs %}{{ f.filename }}{% endfor %}",
          variables: [{ variable: "fs", value_selector: ["sys", "files"] }],
        },
        { id: "b", type: "template-transform", template: "small", variables: [] },
        { id: "end", type: "end", outputs: [{ variable: "names", value_selector: ["a", "output"] }] },
      ],
      edges: [
        ["start", "if"],
        ["if", "big", "a"],
        ["if", "false", "b"],
        ["a", "end"],
        ["b", "end"],
      ],
    });
    // Dify imports (and runs) it; the analyser's finding comes with the import instead of refusing it.
    const res = await s.api("/api/apps/import", { method: "POST", body: exportDify({ ...wf, name: "files" }) });
    const app = (await res.json()) as any;
    expect(res.status, JSON.stringify(app).slice(0, 300)).toBe(201);
    const files = [{ filename: "notes.md", data: Buffer.from("# hi").toString("base64") }];
    const refused = await s.api(`/api/apps/${app.app.id}/runs`, { method: "POST", json: { inputs: { n: 9 }, files } });
    expect(refused.status).toBe(422);
    const started = await s.api(`/api/apps/${app.app.id}/runs`, {
      method: "POST",
      json: { inputs: { n: 9 }, files, allow_warnings: true },
    });
    expect(started.status).toBe(202);
    const body = (await started.json()) as { runId: string; warnings: Array<{ code: string }> };
    expect(body.warnings.map((w) => w.code)).toContain("ref.not_available");
    const run = await waitRun(body.runId);
    expect(run.status).toBe("succeeded");
    expect(run.outputs.names).toBe("notes.md");
    const badFiles = await s.api(`/api/apps/${app.app.id}/runs`, {
      method: "POST",
      json: { inputs: { n: 9 }, files: [{ filename: "x" }], allow_warnings: true },
    });
    expect(badFiles.status).toBe(400);
  });
});
