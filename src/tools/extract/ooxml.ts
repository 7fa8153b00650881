import { assertDepth } from "./depth.js";
import type { ExtractLimits } from "./limits.js";
import { readZip, xmlPart } from "./zip.js";

/**
 * The XML parts of an OOXML package (DOCX, XLSX, PPTX), as text, read within the limits: entry
 * count and inflated bytes while reading (see readZip), then element nesting of every part, so
 * the XML parsers after this never see a part that would overflow their stack.
 */
export async function readOoxmlParts(
  bytes: Uint8Array,
  limits: ExtractLimits,
  what: string,
): Promise<Map<string, string>> {
  const raw = await readZip(bytes, limits, what, xmlPart);
  const parts = new Map<string, string>();
  for (const [name, data] of raw) {
    const text = data.toString("utf8");
    assertDepth(text, limits.maxDepth, `${what} part ${name}`, true);
    parts.set(name, text);
  }
  return parts;
}
