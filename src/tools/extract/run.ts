/**
 * What an extraction thread runs: the built-in extractor for an extension, with the limits applied,
 * its failure turned into a plain reply (code, message, details) the host rebuilds as a DocumentError.
 */
import { DocumentError } from "../errors.js";
import { isBuiltinExtension } from "./formats.js";
import { assertTextWithin, type ExtractLimits } from "./limits.js";
import { BY_EXTENSION } from "./registry.js";

export interface ExtractJob {
  ext: string;
  bytes: Uint8Array;
  limits: ExtractLimits;
}

export type ExtractReply =
  | { ok: true; text: string }
  | { ok: false; code: string; message: string; details: Record<string, unknown> };

/**
 * Loads what the first job would otherwise load inside its wall clock: pdf.js, and its parser, which
 * pdf.js would import on the first document ("fake worker") unless `globalThis.pdfjsWorker` has it.
 */
export async function preload(): Promise<void> {
  await import("pdfjs-dist/legacy/build/pdf.mjs");
  // @ts-expect-error the parser module ships without type declarations
  const parser: unknown = await import("pdfjs-dist/legacy/build/pdf.worker.mjs");
  (globalThis as { pdfjsWorker?: unknown }).pdfjsWorker = parser;
}

export async function runExtraction(job: ExtractJob): Promise<ExtractReply> {
  try {
    if (!isBuiltinExtension(job.ext))
      throw new DocumentError("document.unsupported_type", `no built-in extractor for ${job.ext}`);
    const text = await BY_EXTENSION[job.ext](job.bytes, job.limits);
    assertTextWithin(text, job.limits);
    return { ok: true, text };
  } catch (e) {
    return replyFor(e);
  }
}

function replyFor(e: unknown): ExtractReply {
  if (e instanceof DocumentError) return { ok: false, code: e.code, message: e.message, details: e.details };
  const message = e instanceof Error ? e.message : String(e);
  // A parser recursing per nesting level on input the depth check did not cover (JSON arrays, YAML).
  if (e instanceof RangeError && /call stack/i.test(message)) {
    return {
      ok: false,
      code: "document.too_complex",
      message: "the document is nested too deeply to read",
      details: { limit: "stack" },
    };
  }
  return { ok: false, code: "document.extract_failed", message, details: {} };
}
