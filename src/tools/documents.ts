import type { DocumentService, FileValue } from "../ir/services.js";
import { DocumentError } from "./errors.js";
import { csvToText } from "./extract/csv.js";
import { docxToText } from "./extract/docx.js";
import { emlToText } from "./extract/eml.js";
import { htmlToText } from "./extract/html.js";
import { pdfToText } from "./extract/pdf.js";
import { pptxToText } from "./extract/pptx.js";
import { jsonToText, propertiesToText, vttToText, yamlToText } from "./extract/structured.js";
import { decodeText } from "./extract/text.js";
import { xlsxToText } from "./extract/xlsx.js";
import { extensionOf } from "./mime.js";

export type Extractor = (bytes: Uint8Array, file: FileValue) => Promise<string> | string;

const text =
  (fn: (s: string) => string, what: string): Extractor =>
  (bytes) =>
    fn(decodeText(bytes, what));

const plain = text((s) => s, "text file");

/** Extension → extractor. Local files are dispatched by extension, as Dify does. */
const BY_EXTENSION: Record<string, Extractor> = {
  ".txt": plain,
  ".text": plain,
  ".md": plain,
  ".markdown": plain,
  ".mdx": plain,
  ".xml": plain,
  ".html": text(htmlToText, "HTML file"),
  ".htm": text(htmlToText, "HTML file"),
  ".csv": text(csvToText, "CSV file"),
  ".json": text(jsonToText, "JSON file"),
  ".yaml": text(yamlToText, "YAML file"),
  ".yml": text(yamlToText, "YAML file"),
  ".properties": text(propertiesToText, "properties file"),
  ".vtt": text(vttToText, "VTT file"),
  ".pdf": (b) => pdfToText(b),
  ".docx": (b) => docxToText(b),
  ".xlsx": (b) => xlsxToText(b),
  ".pptx": (b) => pptxToText(b),
  ".eml": (b) => emlToText(b),
};

/** MIME type → extension whose extractor applies; used when the extension is absent or unknown. */
const MIME_TO_EXTENSION: Record<string, string> = {
  "text/plain": ".txt",
  "text/markdown": ".md",
  "text/x-markdown": ".md",
  "text/xml": ".xml",
  "application/xml": ".xml",
  "text/html": ".html",
  "text/htm": ".html",
  "text/csv": ".csv",
  "application/json": ".json",
  "application/yaml": ".yaml",
  "application/x-yaml": ".yaml",
  "text/yaml": ".yaml",
  "text/x-yaml": ".yaml",
  "text/x-java-properties": ".properties",
  "text/vtt": ".vtt",
  "application/pdf": ".pdf",
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document": ".docx",
  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": ".xlsx",
  "application/vnd.openxmlformats-officedocument.presentationml.presentation": ".pptx",
  "message/rfc822": ".eml",
};

/** Types Dify reads that need converters this machine does not have (LibreOffice, unstructured). */
const KNOWN_UNSUPPORTED = new Set([".doc", ".xls", ".ppt", ".epub", ".msg", ".odt"]);

export interface DocumentServiceOptions {
  /** Add or override extractors by extension (with the dot). */
  extractors?: Record<string, Extractor>;
  /** Refuse files larger than this many bytes (default 50 MB). */
  maxBytes?: number;
}

export function supportedDocumentExtensions(): string[] {
  return Object.keys(BY_EXTENSION);
}

/** Extract text from files by extension, falling back to MIME type. */
export class TextDocumentService implements DocumentService {
  private readonly extractors: Record<string, Extractor>;
  private readonly maxBytes: number;

  constructor(options: DocumentServiceOptions = {}) {
    this.extractors = { ...BY_EXTENSION, ...options.extractors };
    this.maxBytes = options.maxBytes ?? 50 * 1024 * 1024;
  }

  /** The extension whose extractor handles this file, or undefined. */
  resolve(file: Pick<FileValue, "extension" | "filename" | "mime_type">): string | undefined {
    const ext = (file.extension || extensionOf(file.filename ?? "")).toLowerCase();
    const dotted = ext && !ext.startsWith(".") ? `.${ext}` : ext;
    if (dotted && this.extractors[dotted]) return dotted;
    const mime = (file.mime_type ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
    const viaMime = MIME_TO_EXTENSION[mime] ?? (mime.startsWith("text/plain") ? ".txt" : undefined);
    if (viaMime && this.extractors[viaMime]) return viaMime;
    return undefined;
  }

  async extract(file: FileValue, bytes: Uint8Array): Promise<string> {
    const name = file?.filename ?? "(unnamed)";
    const ext = this.resolve(file);
    if (!ext) {
      const shown = file.extension || extensionOf(name) || "(none)";
      const why = KNOWN_UNSUPPORTED.has(shown.toLowerCase())
        ? "this format needs a converter that is not available here"
        : "no text extractor handles it";
      throw new DocumentError(
        "document.unsupported_type",
        `file "${name}": unsupported document type (extension ${shown}, MIME ${file.mime_type || "(none)"}): ${why}`,
        { filename: name, extension: file.extension ?? null, mime_type: file.mime_type ?? null },
      );
    }
    if (bytes.byteLength > this.maxBytes) {
      throw new DocumentError(
        "document.too_large",
        `file "${name}" is ${bytes.byteLength} bytes; the limit is ${this.maxBytes}`,
        {
          filename: name,
          size: bytes.byteLength,
        },
      );
    }
    const fn = this.extractors[ext] as Extractor;
    try {
      return await fn(bytes, file);
    } catch (e) {
      if (e instanceof DocumentError) {
        // Name the file: extractors only know the format.
        throw new DocumentError(e.code, `file "${name}": ${e.message}`, { ...e.details, filename: name });
      }
      throw new DocumentError("document.extract_failed", `file "${name}": ${(e as Error).message}`, { filename: name });
    }
  }
}
