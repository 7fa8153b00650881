import type { DocumentService, FileValue } from "../ir/services.js";
import { DocumentError } from "./errors.js";
import { BUILTIN_EXTENSIONS, isBuiltinExtension } from "./extract/formats.js";
import { assertTextWithin, DEFAULT_EXTRACT_LIMITS, type ExtractLimits, ExtractLimitsSchema } from "./extract/limits.js";
import { extensionOf } from "./mime.js";

/** A caller's own extractor; it runs on the caller's thread (only the built-in ones run bounded in a worker). */
export type Extractor = (bytes: Uint8Array, file: FileValue) => Promise<string> | string;

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
  /** Refuse files larger than this many bytes (default 50 MB); the same as limits.maxBytes. */
  maxBytes?: number;
  /** Bounds on each extraction (see ExtractLimitsSchema for the defaults). */
  limits?: Partial<ExtractLimits>;
}

export function supportedDocumentExtensions(): string[] {
  return [...BUILTIN_EXTENSIONS];
}

/** Extract text from files by extension, falling back to MIME type. */
export class TextDocumentService implements DocumentService {
  private readonly custom: Record<string, Extractor>;
  readonly limits: ExtractLimits;

  constructor(options: DocumentServiceOptions = {}) {
    this.custom = { ...options.extractors };
    const given = { ...options.limits, ...(options.maxBytes === undefined ? {} : { maxBytes: options.maxBytes }) };
    const parsed = ExtractLimitsSchema.safeParse({ ...DEFAULT_EXTRACT_LIMITS, ...given });
    if (!parsed.success) {
      const i = parsed.error.issues[0];
      throw new DocumentError(
        "document.invalid_limits",
        `document limits: ${i?.path.join(".") || "(limits)"}: ${i?.message}`,
      );
    }
    this.limits = parsed.data;
  }

  private has(ext: string): boolean {
    return Object.hasOwn(this.custom, ext) || isBuiltinExtension(ext);
  }

  /** The extension whose extractor handles this file, or undefined. */
  resolve(file: Pick<FileValue, "extension" | "filename" | "mime_type">): string | undefined {
    const ext = (file.extension || extensionOf(file.filename ?? "")).toLowerCase();
    const dotted = ext && !ext.startsWith(".") ? `.${ext}` : ext;
    if (dotted && this.has(dotted)) return dotted;
    const mime = (file.mime_type ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
    const viaMime = MIME_TO_EXTENSION[mime] ?? (mime.startsWith("text/plain") ? ".txt" : undefined);
    if (viaMime && this.has(viaMime)) return viaMime;
    return undefined;
  }

  async extract(file: FileValue, bytes: Uint8Array, options: { signal?: AbortSignal } = {}): Promise<string> {
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
    if (bytes.byteLength > this.limits.maxBytes) {
      throw new DocumentError(
        "document.too_large",
        `file "${name}" is ${bytes.byteLength} bytes; the limit is ${this.limits.maxBytes}`,
        { filename: name, size: bytes.byteLength, limit: "maxBytes", maxBytes: this.limits.maxBytes },
      );
    }
    try {
      return await this.run(ext, file, bytes, options.signal);
    } catch (e) {
      if (e instanceof DocumentError) {
        // Name the file: extractors only know the format.
        throw new DocumentError(e.code, `file "${name}": ${e.message}`, { ...e.details, filename: name });
      }
      throw new DocumentError("document.extract_failed", `file "${name}": ${(e as Error).message}`, { filename: name });
    }
  }

  private async run(ext: string, file: FileValue, bytes: Uint8Array, signal?: AbortSignal): Promise<string> {
    const own = Object.hasOwn(this.custom, ext) ? this.custom[ext] : undefined;
    // The bounded extractors' worker pool loads with the first built-in extraction (start-up of every run).
    if (!own) return (await import("./extract/bounded.js")).extractBounded(ext, bytes, this.limits, signal);
    const text = await own(bytes, file);
    assertTextWithin(text, this.limits);
    return text;
  }
}
