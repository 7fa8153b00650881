import { DocumentError } from "../errors.js";
import type { ExtractLimits } from "./limits.js";
import { assertPdfStreamsBounded } from "./pdf-streams.js";

interface TextItem {
  str: string;
  hasEOL?: boolean;
}

/**
 * Text of every page, in order, one page per block. pdfjs-dist's legacy build is the one that runs on
 * Node 20 (unpdf needs 22); it runs its parser in-process ("fake worker"), which is fine inside the
 * extraction thread. Flate streams are measured against the limits first (pdf.js has no bound).
 */
export async function pdfToText(bytes: Uint8Array, limits: ExtractLimits): Promise<string> {
  assertPdfStreamsBounded(bytes, limits);
  const pdfjs = await import("pdfjs-dist/legacy/build/pdf.mjs");
  let doc: Awaited<ReturnType<typeof pdfjs.getDocument>["promise"]> | undefined;
  try {
    // pdfjs takes ownership of the buffer it is given: hand it a copy.
    doc = await pdfjs.getDocument({
      data: new Uint8Array(bytes),
      isEvalSupported: false,
      useSystemFonts: false,
      disableFontFace: true,
      verbosity: 0,
    }).promise;
    const pages: string[] = [];
    for (let i = 1; i <= doc.numPages; i++) {
      const page = await doc.getPage(i);
      const content = await page.getTextContent();
      let text = "";
      for (const item of content.items as TextItem[]) {
        if (typeof item.str !== "string") continue;
        text += item.str;
        if (item.hasEOL) text += "\n";
      }
      pages.push(text.trimEnd());
      page.cleanup();
    }
    return pages.join("\n");
  } catch (e) {
    if (e instanceof DocumentError) throw e;
    throw new DocumentError("document.extract_failed", `PDF file: ${(e as Error).message}`);
  } finally {
    await doc?.destroy();
  }
}
