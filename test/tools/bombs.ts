/**
 * Document bombs, made in memory by the tests (nothing large is committed). Each is small on the
 * wire and huge, deep or slow once read. The ZIP writer is the test's own because the bombs need
 * what no zip library writes: pre-deflated data and headers that lie about sizes.
 */
import { crc32, createDeflate, createDeflateRaw } from "node:zlib";

const MiB = 1024 * 1024;

/** `chunk` repeated `times`, deflated as it streams (the whole never sits in memory); its CRC-32 and size. */
export async function deflateRepeated(
  parts: { head?: string; chunk: Buffer; times: number; tail?: string },
  raw = true,
): Promise<{ deflated: Buffer; crc: number; size: number }> {
  const z = raw ? createDeflateRaw({ level: 9 }) : createDeflate({ level: 9 });
  const out: Buffer[] = [];
  z.on("data", (b: Buffer) => out.push(b));
  const done = new Promise<void>((resolve, reject) => {
    z.on("end", resolve);
    z.on("error", reject);
  });
  let crc = 0;
  let size = 0;
  const write = async (b: Buffer) => {
    crc = crc32(b, crc);
    size += b.length;
    if (!z.write(b)) await new Promise((r) => z.once("drain", r));
  };
  if (parts.head) await write(Buffer.from(parts.head));
  for (let i = 0; i < parts.times; i++) await write(parts.chunk);
  if (parts.tail) await write(Buffer.from(parts.tail));
  z.end();
  await done;
  return { deflated: Buffer.concat(out), crc, size };
}

export interface ZipEntry {
  name: string;
  /** Stored data, deflated here. */
  text?: string;
  /** Data already deflated (raw), with its CRC and real size. */
  deflated?: { deflated: Buffer; crc: number; size: number };
  /** The uncompressed size the headers claim, when they should lie. */
  declaredSize?: number;
}

/** A ZIP archive (deflate entries, central directory) with exactly the given entries and headers. */
export async function zipOf(entries: ZipEntry[]): Promise<Uint8Array> {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const d = e.deflated ?? (await deflateRepeated({ chunk: Buffer.from(e.text ?? ""), times: 1 }));
    const name = Buffer.from(e.name);
    const size = e.declaredSize ?? d.size;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(d.crc >>> 0, 14);
    local.writeUInt32LE(d.deflated.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(d.crc >>> 0, 16);
    central.writeUInt32LE(d.deflated.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, d.deflated);
    centrals.push(central, name);
    offset += local.length + name.length + d.deflated.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Math.min(entries.length, 0xffff), 8);
  end.writeUInt16LE(Math.min(entries.length, 0xffff), 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return new Uint8Array(Buffer.concat([...locals, cd, end]));
}

const CT = "http://schemas.openxmlformats.org/package/2006/content-types";
const REL = "http://schemas.openxmlformats.org/package/2006/relationships";
const OD = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
const W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main";

/** A DOCX whose document.xml holds one text run of `mib` MiB (the probe's was 300). */
export async function docxBomb(mib = 300): Promise<Uint8Array> {
  const body = await deflateRepeated({
    head: `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="${W}"><w:body><w:p><w:r><w:t>`,
    chunk: Buffer.alloc(MiB, "A"),
    times: mib,
    tail: "</w:t></w:r></w:p></w:body></w:document>",
  });
  return zipOf([
    {
      name: "[Content_Types].xml",
      text: `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="${CT}"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`,
    },
    {
      name: "_rels/.rels",
      text: `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="${REL}"><Relationship Id="rId1" Type="${OD}/officeDocument" Target="word/document.xml"/></Relationships>`,
    },
    { name: "word/document.xml", deflated: body },
  ]);
}

/** A DOCX whose document.xml nests `depth` elements. */
export async function docxDeep(depth = 1_000_000): Promise<Uint8Array> {
  const body = await deflateRepeated({
    head: `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="${W}"><w:body>`,
    chunk: Buffer.from("<w:p>".repeat(1000)),
    times: depth / 1000,
    tail: "</w:body></w:document>",
  });
  return zipOf([{ name: "word/document.xml", deflated: body }]);
}

/** An XLSX whose one sheet has `rows` rows (the probe's had 4 million). */
export async function xlsxBomb(rows = 4_000_000): Promise<Uint8Array> {
  const row = "<row><c><v>1</v></c></row>";
  const sheet = await deflateRepeated({
    head: `<?xml version="1.0" encoding="UTF-8"?><worksheet><sheetData>`,
    chunk: Buffer.alloc(row.length * 10_000, row),
    times: rows / 10_000,
    tail: "</sheetData></worksheet>",
  });
  return zipOf([
    {
      name: "xl/workbook.xml",
      text: `<workbook xmlns:r="${OD}"><sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    },
    {
      name: "xl/_rels/workbook.xml.rels",
      text: `<Relationships xmlns="${REL}"><Relationship Id="rId1" Type="${OD}/worksheet" Target="worksheets/sheet1.xml"/></Relationships>`,
    },
    { name: "xl/worksheets/sheet1.xml", deflated: sheet },
  ]);
}

/** A PPTX whose one slide holds `mib` MiB of text. */
export async function pptxBomb(mib = 300): Promise<Uint8Array> {
  const slide = await deflateRepeated({
    head: `<p:sld><p:cSld><p:spTree><p:sp><p:txBody><a:p><a:r><a:t>`,
    chunk: Buffer.alloc(MiB, "B"),
    times: mib,
    tail: "</a:t></a:r></a:p></p:txBody></p:sp></p:spTree></p:cSld></p:sld>",
  });
  return zipOf([
    {
      name: "ppt/presentation.xml",
      text: `<p:presentation><p:sldIdLst><p:sldId id="256" r:id="rId2"/></p:sldIdLst></p:presentation>`,
    },
    {
      name: "ppt/_rels/presentation.xml.rels",
      text: `<Relationships><Relationship Id="rId2" Type="${OD}/slide" Target="slides/slide1.xml"/></Relationships>`,
    },
    { name: "ppt/slides/slide1.xml", deflated: slide },
  ]);
}

/** A ZIP-based file whose entry headers claim a few bytes but whose data inflates to `mib` MiB. */
export async function lyingZip(name: string, mib = 200): Promise<Uint8Array> {
  const data = await deflateRepeated({ chunk: Buffer.alloc(MiB, "<"), times: mib });
  return zipOf([{ name, deflated: data, declaredSize: 100 }]);
}

/** A ZIP container with `count` empty entries. */
export async function manyEntries(count = 20_000): Promise<Uint8Array> {
  return zipOf(Array.from({ length: count }, (_, i) => ({ name: `word/e${i}.xml`, text: "" })));
}

/** An EPUB (a ZIP) whose chapter inflates to `mib` MiB. */
export async function epubBomb(mib = 300): Promise<Uint8Array> {
  const chapter = await deflateRepeated({ chunk: Buffer.alloc(MiB, "C"), times: mib });
  return zipOf([
    { name: "mimetype", text: "application/epub+zip" },
    { name: "OEBPS/chapter1.xhtml", deflated: chapter },
  ]);
}

/**
 * A one-page PDF whose content stream is `mib` MiB of zeros, Flate-compressed (the probe's was 1 GB).
 * `layers` = 2 wraps the data in a second Flate layer, which hides the size from a one-layer scan.
 */
export async function pdfBomb(mib = 1024, layers: 1 | 2 = 1): Promise<Uint8Array> {
  let { deflated } = await deflateRepeated({ chunk: Buffer.alloc(MiB), times: mib }, false);
  if (layers === 2) deflated = (await deflateRepeated({ chunk: deflated, times: 1 }, false)).deflated;
  const filter = layers === 2 ? "[/FlateDecode /FlateDecode]" : "/FlateDecode";
  const objs = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>",
  ];
  const chunks: Buffer[] = [Buffer.from("%PDF-1.4\n")];
  const offsets: number[] = [];
  let at = chunks[0]!.length;
  const add = (b: Buffer) => {
    chunks.push(b);
    at += b.length;
  };
  objs.forEach((o, i) => {
    offsets.push(at);
    add(Buffer.from(`${i + 1} 0 obj\n${o}\nendobj\n`));
  });
  offsets.push(at);
  add(Buffer.from(`4 0 obj\n<< /Length ${deflated.length} /Filter ${filter} >>\nstream\n`));
  add(deflated);
  add(Buffer.from("\nendstream\nendobj\n"));
  const xref = at;
  const rows = offsets.map((o) => `${String(o).padStart(10, "0")} 00000 n \n`).join("");
  add(
    Buffer.from(
      `xref\n0 5\n0000000000 65535 f \n${rows}trailer\n<< /Size 5 /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`,
    ),
  );
  return new Uint8Array(Buffer.concat(chunks));
}

/** `depth` nested `<div>` elements (HTML) or `<a>` elements (XML). */
export function deepMarkup(depth = 1_000_000, tag = "div"): Uint8Array {
  return new Uint8Array(
    Buffer.concat([
      Buffer.alloc(depth * (tag.length + 2), `<${tag}>`),
      Buffer.from("x"),
      Buffer.alloc(depth * (tag.length + 3), `</${tag}>`),
    ]),
  );
}
