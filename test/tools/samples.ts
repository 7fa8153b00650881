import { Document, HeadingLevel, Packer, Paragraph, Table, TableCell, TableRow, TextRun } from "docx";
import JSZip from "jszip";
import PDFDocument from "pdfkit";

/** A two-page PDF written by pdfkit. */
export async function makePdf(pages: string[]): Promise<Uint8Array> {
  const doc = new PDFDocument({ compress: true });
  const chunks: Buffer[] = [];
  doc.on("data", (c: Buffer) => chunks.push(c));
  const done = new Promise<void>((r) => doc.on("end", () => r()));
  pages.forEach((p, i) => {
    if (i > 0) doc.addPage();
    doc.fontSize(14).text(p);
  });
  doc.end();
  await done;
  return new Uint8Array(Buffer.concat(chunks));
}

/** A docx with a heading, a paragraph and a 2x2 table, written by the `docx` package. */
export async function makeDocx(): Promise<Uint8Array> {
  const cell = (t: string) => new TableCell({ children: [new Paragraph(t)] });
  const doc = new Document({
    sections: [
      {
        children: [
          new Paragraph({ text: "Quarterly Report", heading: HeadingLevel.HEADING_1 }),
          new Paragraph({
            children: [new TextRun("Revenue grew "), new TextRun({ text: "12%", bold: true }), new TextRun(".")],
          }),
          new Table({
            rows: [
              new TableRow({ children: [cell("Region"), cell("Sales")] }),
              new TableRow({ children: [cell("North"), cell("42")] }),
            ],
          }),
          new Paragraph("End of report."),
        ],
      },
    ],
  });
  return new Uint8Array(await Packer.toBuffer(doc));
}

/** A minimal but valid xlsx: two sheets, shared strings, a number, a boolean and an empty row. */
export async function makeXlsx(): Promise<Uint8Array> {
  const zip = new JSZip();
  zip.file(
    "[Content_Types].xml",
    `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/><Override PartName="/xl/worksheets/sheet2.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/><Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/></Types>`,
  );
  zip.file(
    "_rels/.rels",
    `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
  );
  zip.file(
    "xl/workbook.xml",
    `<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Scores" sheetId="1" r:id="rId1"/><sheet name="Notes" sheetId="2" r:id="rId2"/></sheets></workbook>`,
  );
  zip.file(
    "xl/_rels/workbook.xml.rels",
    `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet2.xml"/><Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/></Relationships>`,
  );
  zip.file(
    "xl/sharedStrings.xml",
    `<?xml version="1.0" encoding="UTF-8"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="4" uniqueCount="4"><si><t>Name</t></si><si><t>Score</t></si><si><t>Ada &amp; Co</t></si><si><r><t>Bo</t></r><r><t>b</t></r></si></sst>`,
  );
  zip.file(
    "xl/worksheets/sheet1.xml",
    `<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData><row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c><c r="C1" t="inlineStr"><is><t>Passed</t></is></c></row><row r="2"><c r="A2" t="s"><v>2</v></c><c r="B2"><v>91.5</v></c><c r="C2" t="b"><v>1</v></c></row><row r="3"></row><row r="4"><c r="A4" t="s"><v>3</v></c><c r="C4" t="b"><v>0</v></c></row></sheetData></worksheet>`,
  );
  zip.file(
    "xl/worksheets/sheet2.xml",
    `<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>ok</t></is></c></row></sheetData></worksheet>`,
  );
  return new Uint8Array(await zip.generateAsync({ type: "uint8array" }));
}

interface PptxDeck {
  addSlide(): {
    addText(text: string, o: Record<string, unknown>): void;
    addNotes(text: string): void;
  };
  write(o: { outputType: "uint8array" }): Promise<unknown>;
}

/** A one-slide pptx with a title, a paragraph and speaker notes, written by pptxgenjs. */
export async function makePptx(): Promise<Uint8Array> {
  // CommonJS-shaped types over an ES build (see src/tools/render/md-pptx.ts): the class is at one of two places.
  const mod = (await import("pptxgenjs")).default as unknown as { default?: new () => PptxDeck };
  const Deck = mod.default ?? (mod as unknown as new () => PptxDeck);
  const deck = new Deck();
  const slide = deck.addSlide();
  slide.addText("Launch plan", { x: 0.5, y: 0.5, fontSize: 24 });
  slide.addText("Ship in March", { x: 0.5, y: 1.5 });
  slide.addNotes("Mention the budget");
  return (await deck.write({ outputType: "uint8array" })) as Uint8Array;
}
