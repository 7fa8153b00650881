import type { Readable } from "node:stream";
import yauzl, { type Entry, type ZipFile } from "yauzl";
import { DocumentError } from "../errors.js";
import type { ExtractLimits } from "./limits.js";

/**
 * Read a ZIP container (DOCX, XLSX, PPTX) within the limits. yauzl reads the central directory, as
 * JSZip and mammoth do, so it sees the same entries they will; sizes declared in the headers are only
 * used to refuse early. The real bound is the count of bytes actually inflated, checked on every
 * chunk while inflating: the read stops at the first byte past the limit, however the headers lie
 * (and yauzl's validateEntrySizes also fails an entry whose data disagrees with its header).
 */
export async function readZip(
  bytes: Uint8Array,
  limits: ExtractLimits,
  what: string,
  keep: (name: string) => boolean = () => true,
): Promise<Map<string, Buffer>> {
  const zip = await open(bytes, what);
  try {
    if (zip.entryCount > limits.maxEntries) throw tooManyEntries(what, zip.entryCount, limits);
    return await readEntries(zip, limits, what, keep);
  } finally {
    zip.close();
  }
}

/** Parts whose names end in `.xml` or `.rels`: what the OOXML extractors read. */
export const xmlPart = (name: string) => name.endsWith(".xml") || name.endsWith(".rels");

function open(bytes: Uint8Array, what: string): Promise<ZipFile> {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return new Promise((resolve, reject) =>
    yauzl.fromBuffer(buf, { lazyEntries: true, validateEntrySizes: true, strictFileNames: false }, (err, zip) =>
      err ? reject(notZip(what, err)) : resolve(zip),
    ),
  );
}

function readEntries(
  zip: ZipFile,
  limits: ExtractLimits,
  what: string,
  keep: (name: string) => boolean,
): Promise<Map<string, Buffer>> {
  const parts = new Map<string, Buffer>();
  let declared = 0;
  const inflated = { total: 0 };
  return new Promise((resolve, reject) => {
    zip.on("error", (e: Error) => reject(notZip(what, e)));
    zip.on("end", () => resolve(parts));
    zip.on("entry", (entry: Entry) => {
      if (entry.fileName.endsWith("/")) return zip.readEntry();
      declared += entry.uncompressedSize;
      if (declared > limits.maxUncompressedBytes) return reject(tooLarge(what, declared, limits, "declares"));
      readEntry(zip, entry, limits, what, inflated).then((data) => {
        if (keep(entry.fileName)) parts.set(entry.fileName, data);
        zip.readEntry();
      }, reject);
    });
    zip.readEntry();
  });
}

function readEntry(
  zip: ZipFile,
  entry: Entry,
  limits: ExtractLimits,
  what: string,
  inflated: { total: number },
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    zip.openReadStream(entry, (err, stream: Readable) => {
      if (err) return reject(badEntry(what, entry, err));
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => {
        inflated.total += chunk.length;
        if (inflated.total > limits.maxUncompressedBytes) {
          stream.destroy();
          reject(tooLarge(what, inflated.total, limits, "inflates to"));
          return;
        }
        chunks.push(chunk);
      });
      stream.on("error", (e: Error) => reject(badEntry(what, entry, e)));
      stream.on("end", () => resolve(Buffer.concat(chunks)));
    });
  });
}

function tooLarge(what: string, bytes: number, limits: ExtractLimits, verb: string): DocumentError {
  const shown = verb === "inflates to" ? `more than ${limits.maxUncompressedBytes}` : String(bytes);
  return new DocumentError(
    "document.too_large",
    `${what}: the archive ${verb} ${shown} bytes uncompressed; the limit is ${limits.maxUncompressedBytes}`,
    { limit: "maxUncompressedBytes", maxUncompressedBytes: limits.maxUncompressedBytes },
  );
}

function tooManyEntries(what: string, count: number, limits: ExtractLimits): DocumentError {
  return new DocumentError(
    "document.too_complex",
    `${what}: the archive has ${count} entries; the limit is ${limits.maxEntries}`,
    { limit: "maxEntries", entries: count, maxEntries: limits.maxEntries },
  );
}

function notZip(what: string, e: Error): DocumentError {
  return new DocumentError("document.extract_failed", `${what}: not a readable zip archive (${e.message})`);
}

function badEntry(what: string, entry: Entry, e: Error): DocumentError {
  if (/too many bytes in the stream/.test(e.message)) {
    // yauzl's validateEntrySizes: the data inflates past the size its header declares.
    return new DocumentError(
      "document.extract_failed",
      `${what}: zip entry "${entry.fileName}" inflates to more than the ${entry.uncompressedSize} bytes its header declares`,
      { entry: entry.fileName },
    );
  }
  return new DocumentError(
    "document.extract_failed",
    `${what}: zip entry "${entry.fileName}" cannot be read (${e.message})`,
    {
      entry: entry.fileName,
    },
  );
}
