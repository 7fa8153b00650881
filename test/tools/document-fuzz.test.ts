/**
 * Property: whatever is done to a small valid document of any type the extractors read, extraction
 * either gives text or fails with a typed DocumentError (document.*) — never an untyped error, and
 * never a dead extraction thread or host. Byte mutations hit the containers (ZIP, PDF xref, MIME);
 * part mutations re-zip an OOXML file with one XML part mutated, so the XML readers see the damage.
 */
import fc from "fast-check";
import JSZip from "jszip";
import { afterAll, describe, expect, it } from "vitest";
import type { FileValue } from "../../src/ir/services.js";
import { TextDocumentService } from "../../src/tools/documents.js";
import { DocumentError } from "../../src/tools/errors.js";
import { closeExtractionWorkers } from "../../src/tools/extract/bounded.js";
import { makeDocx, makePdf, makePptx, makeXlsx } from "./samples.js";

const SEED = 28_2;
// About 4 s warm: a DOCX (mammoth) takes ~100 ms, most other inputs a few ms.
const RUNS = 300;
const enc = (s: string) => new TextEncoder().encode(s);

const TEXT_SAMPLES: Record<string, string> = {
  "a.html":
    "<html><body><h1>T</h1><p>a <b>b</b></p><ul><li>x</li></ul><table><tr><td>1</td></tr></table></body></html>",
  "a.csv": 'name,score\n"Doe, J",3\nAl,4\n',
  "a.json": '{"a":[1,2,{"b":"名"}],"c":null}',
  "a.yaml": "b: 1\na: [x, y]\n---\nc: true\n",
  "a.eml":
    "From: Ann <ann@example.com>\r\nTo: bob@example.com\r\nSubject: hi\r\nContent-Type: text/html; charset=utf-8\r\n\r\n<p>Meeting <b>at</b> ten</p>\r\n",
  "a.vtt": "WEBVTT\n\n00:00.000 --> 00:01.000\n<v Ann>Hello\n\n00:01.000 --> 00:02.000\n<v Bob>Hi",
  "a.properties": "# c\nhost = localhost\nmsg=long \\\n  line\n",
  "a.md": "# Title\n\n- item\n",
  "a.xml": "<root><a x='1'>t</a></root>",
};

async function samples(): Promise<Array<[string, Uint8Array]>> {
  return [
    ["a.docx", await makeDocx()],
    ["a.xlsx", await makeXlsx()],
    ["a.pptx", await makePptx()],
    ["a.pdf", await makePdf(["Hello from page one", "And two"])],
    ...Object.entries(TEXT_SAMPLES).map(([n, t]) => [n, enc(t)] as [string, Uint8Array]),
  ];
}

type ByteOp = { kind: "flip" | "insert" | "delete" | "dup" | "truncate"; at: number; len: number; byte: number };

const byteOp: fc.Arbitrary<ByteOp> = fc.record({
  kind: fc.constantFrom("flip", "insert", "delete", "dup", "truncate"),
  at: fc.nat(),
  len: fc.integer({ min: 1, max: 64 }),
  byte: fc.integer({ min: 0, max: 255 }),
});

function mutate(bytes: Uint8Array, ops: ByteOp[]): Uint8Array {
  let b = Buffer.from(bytes);
  for (const op of ops) {
    if (b.length === 0) break;
    const at = op.at % b.length;
    const end = Math.min(b.length, at + op.len);
    if (op.kind === "flip") b[at] = op.byte;
    else if (op.kind === "insert")
      b = Buffer.concat([b.subarray(0, at), Buffer.alloc(op.len, op.byte), b.subarray(at)]);
    else if (op.kind === "delete") b = Buffer.concat([b.subarray(0, at), b.subarray(end)]);
    else if (op.kind === "dup") b = Buffer.concat([b.subarray(0, end), b.subarray(at, end), b.subarray(end)]);
    else b = b.subarray(0, at);
  }
  return new Uint8Array(b);
}

/** One XML part of an OOXML package mutated as text (markup characters are likelier than random bytes). */
async function mutatePart(bytes: Uint8Array, pick: number, ops: ByteOp[]): Promise<Uint8Array> {
  const zip = await JSZip.loadAsync(bytes);
  const names = Object.keys(zip.files).filter((n) => n.endsWith(".xml") || n.endsWith(".rels"));
  const name = names[pick % names.length] as string;
  const markup = ops.map((o) => ({ ...o, byte: "<>/\"'&=:; x"[o.byte % 11]!.charCodeAt(0) }));
  zip.file(name, mutate(await zip.file(name)!.async("uint8array"), markup));
  return zip.generateAsync({ type: "uint8array", compression: "STORE" });
}

const docs = new TextDocumentService();
const file = (filename: string, size: number): FileValue => ({
  type: "document",
  transfer_method: "local_file",
  filename,
  extension: filename.slice(filename.lastIndexOf(".")),
  mime_type: "",
  size,
});

afterAll(() => closeExtractionWorkers());

describe("document extractor fuzz", () => {
  it("mutated documents of every type give text or a typed DocumentError, never anything else", {
    timeout: 120_000,
  }, async () => {
    const base = await samples();
    const outcomes: Record<string, number> = {};
    const untyped: string[] = [];
    let tried = 0;
    // Start the extraction thread first: its start-up is not the fuzz's cost.
    expect(await docs.extract(file("warm.txt", 2), enc("hi"))).toBe("hi");
    const started = performance.now();
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: base.length - 1 }),
        fc.boolean(),
        fc.nat(),
        fc.array(byteOp, { minLength: 1, maxLength: 4 }),
        async (which, inPart, pick, ops) => {
          const [name, bytes] = base[which]!;
          const zipped = /\.(docx|xlsx|pptx)$/.test(name);
          const input = zipped && inPart ? await mutatePart(bytes, pick, ops) : mutate(bytes, ops);
          tried++;
          try {
            await docs.extract(file(name, input.byteLength), input);
            outcomes.text = (outcomes.text ?? 0) + 1;
          } catch (e) {
            const code = e instanceof DocumentError && e.code.startsWith("document.") ? e.code : "UNTYPED";
            outcomes[code] = (outcomes[code] ?? 0) + 1;
            if (code === "UNTYPED" || code === "document.unavailable") untyped.push(`${name}: ${String(e)}`);
          }
          return true;
        },
      ),
      { seed: SEED, numRuns: RUNS },
    );
    const ms = Math.round(performance.now() - started);
    console.log(`document fuzz (seed ${SEED}): ${tried} inputs in ${ms} ms; outcomes ${JSON.stringify(outcomes)}`);
    expect(untyped).toEqual([]);
    expect(tried).toBe(RUNS);
    // The extractor is still there after all of it.
    expect(await docs.extract(file("ok.csv", 3), enc("a,b\n1,2"))).toContain("| a | b |");
  });
});
