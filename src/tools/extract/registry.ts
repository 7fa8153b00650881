import { csvToText } from "./csv.js";
import { docxToText } from "./docx.js";
import { emlToText } from "./eml.js";
import type { BuiltinExtension } from "./formats.js";
import { htmlToText } from "./html.js";
import type { ExtractLimits } from "./limits.js";
import { pdfToText } from "./pdf.js";
import { pptxToText } from "./pptx.js";
import { jsonToText, propertiesToText, vttToText, yamlToText } from "./structured.js";
import { decodeText } from "./text.js";
import { xlsxToText } from "./xlsx.js";

/** A built-in extractor: bytes in, text out, within the limits (it runs inside an extraction thread). */
export type BuiltinExtractor = (bytes: Uint8Array, limits: ExtractLimits) => Promise<string> | string;

const text =
  (fn: (s: string, limits: ExtractLimits) => string, what: string): BuiltinExtractor =>
  (bytes, limits) =>
    fn(decodeText(bytes, what), limits);

const plain = text((s) => s, "text file");

/** Extension → extractor. Local files are dispatched by extension, as Dify does. */
export const BY_EXTENSION: Record<BuiltinExtension, BuiltinExtractor> = {
  ".txt": plain,
  ".text": plain,
  ".md": plain,
  ".markdown": plain,
  ".mdx": plain,
  // XML is passed through as text (no tree is built), so nesting cannot hurt it.
  ".xml": plain,
  ".html": text(htmlToText, "HTML file"),
  ".htm": text(htmlToText, "HTML file"),
  ".csv": text(csvToText, "CSV file"),
  ".json": text(jsonToText, "JSON file"),
  ".yaml": text(yamlToText, "YAML file"),
  ".yml": text(yamlToText, "YAML file"),
  ".properties": text(propertiesToText, "properties file"),
  ".vtt": text(vttToText, "VTT file"),
  ".pdf": pdfToText,
  ".docx": docxToText,
  ".xlsx": xlsxToText,
  ".pptx": pptxToText,
  ".eml": emlToText,
};
