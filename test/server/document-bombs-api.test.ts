/**
 * Issue 28 item 2 over HTTP, without a browser: document bombs uploaded to POST
 * /api/knowledge/:id/documents answer a typed 413/422 while other requests keep being served, and
 * the server stays up. Extraction runs in bounded threads, so the event loop is never the one
 * inflating, parsing or running out of memory.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TextDocumentService } from "../../src/tools/documents.js";
import { closeExtractionWorkers } from "../../src/tools/extract/bounded.js";
import { deepMarkup, docxBomb, lyingZip, manyEntries, pdfBomb, pptxBomb, xlsxBomb } from "../tools/bombs.js";
import { makeDocx } from "../tools/samples.js";
import { startTestServer, type TestServer } from "./helpers.js";

const TIMEOUT = 180_000;
const b64 = (b: Uint8Array) => Buffer.from(b).toString("base64");

let s: TestServer;
beforeAll(async () => {
  // The default limits but a 5 s clock, so the bomb that only the clock stops does not take 30 s.
  s = await startTestServer({ services: { documents: new TextDocumentService({ limits: { timeoutMs: 5_000 } }) } });
  expect((await s.api("/api/knowledge", { method: "POST", json: { name: "Bombs", id: "bombs" } })).status).toBe(201);
}, TIMEOUT);
afterAll(async () => {
  await s?.stop();
  await closeExtractionWorkers();
});

/** Upload while polling /health and /api/apps; every poll must succeed, and some must finish before the upload does. */
async function uploadWhilePolling(filename: string, bytes: Uint8Array) {
  let settled = false;
  const upload = s
    .api("/api/knowledge/bombs/documents", { method: "POST", json: { filename, data: b64(bytes) } })
    .finally(() => {
      settled = true;
    });
  let during = 0;
  const statuses: number[] = [];
  while (!settled) {
    for (const path of ["/health", "/api/apps"]) {
      const r = await s.api(path);
      statuses.push(r.status);
      await r.arrayBuffer();
    }
    if (!settled) during++;
  }
  const res = await upload;
  return { res, body: (await res.json()) as { error?: { code: string; message: string } }, during, statuses };
}

describe("document bombs over HTTP", () => {
  it("each bomb is a typed 413/422 with its code, and the server answers other requests meanwhile", {
    timeout: TIMEOUT,
  }, async () => {
    const bombs: Array<[string, Uint8Array, number, string]> = [
      ["run.docx", await docxBomb(300), 413, "document.too_large"],
      ["rows.xlsx", await xlsxBomb(4_000_000), 413, "document.too_large"],
      ["deck.pptx", await pptxBomb(300), 413, "document.too_large"],
      ["zeros.pdf", await pdfBomb(1024), 413, "document.too_large"],
      ["lies.docx", await lyingZip("word/document.xml", 200), 422, "document.extract_failed"],
      ["many.xlsx", await manyEntries(20_000), 422, "document.too_complex"],
      // Half a million levels: a million would pass the 10 MB request limit once in base64.
      ["deep.html", deepMarkup(500_000, "div"), 422, "document.too_complex"],
    ];
    for (const [filename, bytes, status, code] of bombs) {
      const { res, body, statuses } = await uploadWhilePolling(filename, bytes);
      expect({ filename, status: res.status, code: body.error?.code }).toEqual({ filename, status, code });
      expect(body.error?.message).toContain(filename);
      expect(statuses.every((x) => x === 200)).toBe(true);
    }
  });

  it("a bomb only the clock stops (two Flate layers) is a 422 document.timeout; requests are served while it runs", {
    timeout: TIMEOUT,
  }, async () => {
    const { res, body, during, statuses } = await uploadWhilePolling("layers.pdf", await pdfBomb(1024, 2));
    expect(res.status).toBe(422);
    expect(["document.timeout", "document.memory"]).toContain(body.error?.code);
    // The upload took the whole 5 s clock; the polls that finished before it prove the loop was free.
    expect(during).toBeGreaterThan(0);
    expect(statuses.every((x) => x === 200)).toBe(true);
  });

  it("the server is alive afterwards and still reads a real document", { timeout: TIMEOUT }, async () => {
    const add = await s.api("/api/knowledge/bombs/documents", {
      method: "POST",
      json: { filename: "report.docx", data: b64(await makeDocx()) },
    });
    expect(add.status).toBe(201);
    const docs = (await (await s.api("/api/knowledge/bombs/documents")).json()) as {
      documents: Array<{ name: string }>;
    };
    expect(docs.documents.map((d) => d.name)).toEqual(["report.docx"]);
  });
});
