import mammoth from "mammoth";
import { DocumentError } from "../errors.js";
import { htmlToText } from "./html.js";

/**
 * Paragraphs in document order, one per line, tables as markdown tables (Dify's newer extractor does
 * the same). mammoth gives semantic HTML, which the HTML extractor then flattens.
 */
export async function docxToText(bytes: Uint8Array): Promise<string> {
  try {
    const { value } = await mammoth.convertToHtml({ buffer: Buffer.from(bytes) });
    return htmlToText(value);
  } catch (e) {
    throw new DocumentError("document.extract_failed", `DOCX file: ${(e as Error).message}`);
  }
}
