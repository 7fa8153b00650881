/**
 * What bounding document extraction costs (issue 28 item 2). For real documents of each type, the
 * median wall time of one extraction by: the extractor called on the main thread (the old path's
 * place; the size, entry, depth and stream checks now inside the extractors included), and
 * TextDocumentService.extract, which sends the bytes to a warm extraction thread and back (the new
 * path). The first call, which starts a thread and loads the extractors in it, is printed apart.
 *
 *   npx tsx bench/extract.ts [runs]
 */
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import type { FileValue } from "../src/ir/services.js";
import { TextDocumentService } from "../src/tools/documents.js";
import { closeExtractionWorkers } from "../src/tools/extract/bounded.js";
import type { BuiltinExtension } from "../src/tools/extract/formats.js";
import { DEFAULT_EXTRACT_LIMITS } from "../src/tools/extract/limits.js";
import { BY_EXTENSION } from "../src/tools/extract/registry.js";
import { corpusPath } from "../test/support/corpus.js";
import { makeDocx, makePptx, makeXlsx } from "../test/tools/samples.js";

const N = Number(process.argv[2] ?? 20);
const corpus = (name: string) => new Uint8Array(readFileSync(corpusPath("chat2workflow", "case_files", name)));

const html = `<html><body>${Array.from({ length: 500 }, (_, i) => `<h2>Section ${i}</h2><p>Some <b>bold</b> text ${i}.</p><ul><li>a</li><li>b</li></ul>`).join("")}</body></html>`;
const csv = Array.from({ length: 2000 }, (_, i) => `${i},name ${i},${i * 3.5}`).join("\n");

async function cases(): Promise<Array<{ name: string; ext: BuiltinExtension; bytes: Uint8Array }>> {
  return [
    { name: "txt (corpus)", ext: ".txt", bytes: corpus("Floyd.txt") },
    { name: "html, 500 sections", ext: ".html", bytes: new TextEncoder().encode(html) },
    { name: "csv, 2000 rows", ext: ".csv", bytes: new TextEncoder().encode(csv) },
    { name: "docx (generated)", ext: ".docx", bytes: await makeDocx() },
    { name: "docx (corpus lease)", ext: ".docx", bytes: corpus("residential-lease-agreement.docx") },
    { name: "xlsx (generated)", ext: ".xlsx", bytes: await makeXlsx() },
    { name: "xlsx (corpus)", ext: ".xlsx", bytes: corpus("Financial_statements_0001.xlsx") },
    { name: "pptx (generated)", ext: ".pptx", bytes: await makePptx() },
    { name: "pdf (corpus, 3 pages)", ext: ".pdf", bytes: corpus("the-three-little-pigs.pdf") },
    { name: "pdf (corpus paper)", ext: ".pdf", bytes: corpus("LIMO_Less is More for Reasoning.pdf") },
  ];
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

async function time(f: () => Promise<unknown>, runs: number): Promise<number> {
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await f();
    out.push(performance.now() - t0);
  }
  return median(out);
}

const file = (ext: string, size: number): FileValue => ({
  type: "document",
  transfer_method: "local_file",
  filename: `bench${ext}`,
  extension: ext,
  mime_type: "",
  size,
});

const docs = new TextDocumentService();
const all = await cases();
const t0 = performance.now();
await docs.extract(file(".txt", 2), new TextEncoder().encode("hi"));
const first = performance.now() - t0;

const rows: Array<Record<string, string>> = [];
for (const c of all) {
  const main = () => Promise.resolve(BY_EXTENSION[c.ext](c.bytes, DEFAULT_EXTRACT_LIMITS));
  const worker = () => docs.extract(file(c.ext, c.bytes.byteLength), c.bytes);
  await main(); // warm both paths (module caches, JIT)
  await worker();
  const m = await time(main, N);
  const w = await time(worker, N);
  rows.push({
    document: c.name,
    KB: (c.bytes.byteLength / 1024).toFixed(0),
    "main thread ms": m.toFixed(2),
    "worker ms": w.toFixed(2),
    "overhead ms": (w - m).toFixed(2),
  });
}
console.log(
  `median of ${N} runs each; first extraction in a fresh process (thread start + loading): ${first.toFixed(0)} ms`,
);
console.table(rows);
await closeExtractionWorkers();
