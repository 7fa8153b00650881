import { z } from "zod";
import { DocumentError } from "../errors.js";

const MiB = 1024 * 1024;

/**
 * Bounds on one extraction. Compressed size alone says nothing (a 300 KB DOCX can inflate to 300 MB),
 * so each stage has its own bound: bytes in, bytes inflated (counted while inflating), ZIP entries,
 * element nesting, wall time, heap of the extraction thread, characters out. Each breach is a typed
 * DocumentError: document.too_large (input, inflated, output), document.too_complex (entries, depth),
 * document.timeout, document.memory.
 */
export const ExtractLimitsSchema = z.strictObject({
  /** Bytes of the file as given (before any decompression). */
  maxBytes: z
    .int()
    .min(1)
    .default(50 * 1024 * 1024),
  /** Bytes inflated from a ZIP container (all entries) or from a PDF's non-image Flate streams (all streams). */
  maxUncompressedBytes: z
    .int()
    .min(1)
    .default(64 * MiB),
  /** Entries in a ZIP container (DOCX, XLSX, PPTX). */
  maxEntries: z.int().min(1).default(10_000),
  /** Element nesting in HTML and in the XML parts of OOXML files; real documents stay far below. */
  maxDepth: z.int().min(8).default(512),
  /** Wall clock of one extraction; the extraction thread is terminated after it. */
  timeoutMs: z.int().min(100).default(30_000),
  /** Old-generation heap of an extraction thread; a document that needs more fails with document.memory. */
  heapMb: z.int().min(32).default(512),
  /** Characters of extracted text (32 Mi characters, about one novel shelf; chunking and embedding cost scale with it). */
  maxTextChars: z
    .int()
    .min(1)
    .default(32 * MiB),
});
export type ExtractLimits = z.output<typeof ExtractLimitsSchema>;
export const DEFAULT_EXTRACT_LIMITS: ExtractLimits = ExtractLimitsSchema.parse({});

/** The output cap, also applied by the host to extractors that run on its own thread. */
export function assertTextWithin(text: string, limits: Pick<ExtractLimits, "maxTextChars">): void {
  if (text.length > limits.maxTextChars) {
    throw new DocumentError(
      "document.too_large",
      `the extracted text has ${text.length} characters; the limit is ${limits.maxTextChars}`,
      { limit: "maxTextChars", chars: text.length, maxTextChars: limits.maxTextChars },
    );
  }
}
