import mammoth from "mammoth";
import { DocumentError } from "../errors.js";
import { htmlToText } from "./html.js";
import type { ExtractLimits } from "./limits.js";
import { readOoxmlParts } from "./ooxml.js";

/**
 * Paragraphs in document order, one per line, tables as markdown tables (Dify's newer extractor does
 * the same). mammoth gives semantic HTML, which the HTML extractor then flattens. The package is
 * read within the limits first: mammoth inflates every part it needs whole, with no bound of its own.
 */
export async function docxToText(bytes: Uint8Array, limits: ExtractLimits): Promise<string> {
  await readOoxmlParts(bytes, limits, "DOCX file");
  let html: string;
  try {
    ({ value: html } = await mammoth.convertToHtml({ buffer: Buffer.from(bytes) }));
  } catch (e) {
    throw new DocumentError("document.extract_failed", `DOCX file: ${(e as Error).message}`);
  }
  return htmlToText(html, limits, "DOCX file");
}
