import { describe, expect, it } from "vitest";
import type { FileValue } from "../../src/ir/services.js";
import { TextDocumentService } from "../../src/tools/documents.js";
import { DocumentError } from "../../src/tools/errors.js";
import { MemoryFileService } from "../../src/tools/files.js";
import { makeDocx, makePdf, makeXlsx } from "./samples.js";

const enc = (s: string) => new TextEncoder().encode(s);
const docs = new TextDocumentService();
const store = new MemoryFileService();

async function extract(filename: string, bytes: Uint8Array | string, mimeType = ""): Promise<string> {
  const b = typeof bytes === "string" ? enc(bytes) : bytes;
  const f = await store.put(b, { filename, mimeType });
  return docs.extract(f, await store.get(f));
}

describe("TextDocumentService", () => {
  it("reads plain text and markdown as is (BOM stripped)", async () => {
    expect(await extract("a.txt", "line 1\nline 2")).toBe("line 1\nline 2");
    expect(await extract("b.md", "\uFEFF# Title\n\n- item")).toBe("# Title\n\n- item");
  });

  it("falls back to GB18030 for Chinese text that is not UTF-8", async () => {
    // "你好" in GB18030
    expect(await extract("c.txt", new Uint8Array([0xc4, 0xe3, 0xba, 0xc3]))).toBe("你好");
  });

  it("gives the visible text of HTML, without scripts and styles, tables as markdown", async () => {
    const html = `<html><head><title>T</title><style>p{color:red}</style></head><body>
      <h1>Heading</h1><p>First <b>para</b>.</p><script>alert(1)</script>
      <ul><li>one</li><li>two</li></ul><ol start="3"><li>third</li><li>fourth</li></ol>
      <table><tr><th>k</th><th>v</th></tr><tr><td>a</td><td>1</td></tr></table></body></html>`;
    const text = await extract("page.html", html);
    expect(text).toContain("Heading");
    expect(text).toContain("First para.");
    expect(text).toContain("- one");
    expect(text).toContain("3. third\n4. fourth");
    expect(text).toContain("| k | v |\n| --- | --- |\n| a | 1 |");
    expect(text).not.toContain("alert");
    expect(text).not.toContain("color:red");
  });

  it("turns CSV into a markdown table like Dify", async () => {
    expect(await extract("t.csv", 'name,score\n"Doe, J",3\nAl,4\n')).toBe(
      "| name | score |\n| --- | --- |\n| Doe, J | 3 |\n| Al | 4 |",
    );
  });

  it("re-indents JSON with non-ASCII kept and reports invalid JSON", async () => {
    expect(await extract("d.json", '{"a":[1,2],"名":"值"}')).toBe('{\n  "a": [\n    1,\n    2\n  ],\n  "名": "值"\n}');
    await expect(extract("bad.json", "{nope")).rejects.toMatchObject({ code: "document.extract_failed" });
  });

  it("re-dumps multi-document YAML", async () => {
    expect(await extract("c.yaml", "b: 1\na: [x, y]\n---\nc: true\n")).toBe("b: 1\na:\n  - x\n  - y\n---\nc: true");
  });

  it("extracts every page of a PDF written by pdfkit", async () => {
    const pdf = await makePdf(["Hello from page one", "And page two"]);
    const text = await extract("report.pdf", pdf);
    expect(text).toContain("Hello from page one");
    expect(text).toContain("And page two");
    expect(text.indexOf("one")).toBeLessThan(text.indexOf("two"));
  });

  it("reports a corrupt PDF as a typed extraction error naming the file", async () => {
    const err = await extract("broken.pdf", "%PDF-1.4 not really").catch((e) => e);
    expect(err).toBeInstanceOf(DocumentError);
    expect(err.code).toBe("document.extract_failed");
    expect(err.message).toContain("broken.pdf");
  });

  it("extracts a docx written by the docx package, with the table as markdown", async () => {
    const text = await extract("r.docx", await makeDocx());
    expect(text).toContain("Quarterly Report");
    expect(text).toContain("Revenue grew 12%.");
    expect(text).toContain("| Region | Sales |\n| --- | --- |\n| North | 42 |");
    expect(text.indexOf("Quarterly")).toBeLessThan(text.indexOf("End of report."));
  });

  it("extracts xlsx sheets as markdown tables, dropping empty rows", async () => {
    const text = await extract("s.xlsx", await makeXlsx());
    expect(text).toBe(
      "## Scores\n\n| Name | Score | Passed |\n| --- | --- | --- |\n| Ada & Co | 91.5 | TRUE |\n| Bob |  | FALSE |\n\n## Notes\n\n| ok |\n| --- |",
    );
  });

  it("reads eml headers and body", async () => {
    const eml = [
      "From: Ann <ann@example.com>",
      "To: bob@example.com",
      "Subject: =?UTF-8?B?5Lya6K6u?= notes",
      "Date: Tue, 01 Dec 2026 10:00:00 +0000",
      "Content-Type: text/plain; charset=utf-8",
      "Content-Transfer-Encoding: quoted-printable",
      "",
      "Meeting at 10=3A00.",
      "",
    ].join("\r\n");
    const text = await extract("m.eml", eml);
    expect(text).toContain("From: Ann <ann@example.com>");
    expect(text).toContain("Subject: 会议 notes");
    expect(text).toContain("Meeting at 10:00.");
  });

  it("reads .properties and .vtt", async () => {
    expect(await extract("app.properties", "# c\nhost = localhost\nport:8080\nmsg=long \\\n  line\n")).toBe(
      "host: localhost\nport: 8080\nmsg: long line",
    );
    const vtt =
      "WEBVTT\n\n00:00.000 --> 00:01.000\n<v Ann>Hello\n\n00:01.000 --> 00:02.000\n<v Ann>there</v>\n\n00:02.000 --> 00:03.000\n<v Bob>Hi";
    expect(await extract("talk.vtt", vtt)).toBe('Ann "Hello there"\nBob "Hi"');
  });

  it("dispatches by MIME type when the extension is missing", async () => {
    const f: FileValue = {
      type: "document",
      transfer_method: "remote_url",
      filename: "download",
      extension: "",
      mime_type: "text/csv; charset=utf-8",
      size: 3,
    };
    expect(await docs.extract(f, enc("a,b\n1,2"))).toBe("| a | b |\n| --- | --- |\n| 1 | 2 |");
  });

  it("names the type of unsupported files in a typed error", async () => {
    const err = await extract("photo.png", new Uint8Array([137, 80]), "image/png").catch((e) => e);
    expect(err).toBeInstanceOf(DocumentError);
    expect(err.code).toBe("document.unsupported_type");
    expect(err.message).toContain(".png");
    expect(err.message).toContain("image/png");
    const ppt = await extract("deck.ppt", new Uint8Array([80, 75])).catch((e) => e);
    expect(ppt.code).toBe("document.unsupported_type");
    expect(ppt.message).toContain("converter");
    // A .pptx is read (slides and notes); one that is not a zip is a typed extraction error.
    const broken = await extract("deck.pptx", new Uint8Array([80, 75])).catch((e) => e);
    expect(broken).toBeInstanceOf(DocumentError);
    expect(broken.code).toBe("document.extract_failed");
    expect(broken.message).toContain("PPTX file");
  });

  it("accepts extractor overrides", async () => {
    const custom = new TextDocumentService({ extractors: { ".log": (b) => `LOG:${new TextDecoder().decode(b)}` } });
    const f = await store.put(enc("x"), { filename: "a.log", mimeType: "text/plain" });
    expect(await custom.extract(f, enc("x"))).toBe("LOG:x");
  });
});
