import { DocumentError } from "../errors.js";
import type { ExtractLimits } from "./limits.js";
import { readOoxmlParts } from "./ooxml.js";

/** Attributes of every `<tag …>` element in an XML part (OOXML parts are flat enough for this). */
function elements(part: string, tag: string): Array<Record<string, string>> {
  return [...part.matchAll(new RegExp(`<${tag}\\b([^>]*?)/?>`, "g"))].map((m) =>
    Object.fromEntries([...m[1]!.matchAll(/([\w:]+)="([^"]*)"/g)].map((a) => [a[1]!, a[2]!])),
  );
}

const decode = (s: string) =>
  s
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&#(\d+);/g, (_, n: string) => String.fromCodePoint(Number(n)))
    .replace(/&amp;/g, "&");

/** Paragraph texts of one slide part, tables row by row (cells joined by " | "). */
function slideText(part: string): string[] {
  const lines: string[] = [];
  for (const p of part.matchAll(/<a:p(?:\s[^>]*)?>([\s\S]*?)<\/a:p>/g)) {
    const text = [...p[1]!.matchAll(/<a:t(?:\s[^>]*)?>([^<]*)<\/a:t>/g)].map((t) => decode(t[1]!)).join("");
    if (text.trim()) lines.push(text);
  }
  return lines;
}

/**
 * Each slide in presentation order as `## Slide N` plus its paragraphs, then its speaker notes
 * (`Notes:` lines), as Dify's unstructured-based extractor lists slide text.
 */
export async function pptxToText(bytes: Uint8Array, limits: ExtractLimits): Promise<string> {
  const parts = await readOoxmlParts(bytes, limits, "PPTX file");
  const read = async (p: string) => parts.get(p);
  const pres = await read("ppt/presentation.xml");
  const rels = await read("ppt/_rels/presentation.xml.rels");
  if (!pres || !rels) throw new DocumentError("document.extract_failed", "PPTX file: no ppt/presentation.xml");
  const target = new Map(elements(rels, "Relationship").map((r) => [r.Id ?? "", r.Target ?? ""]));
  const out: string[] = [];
  const ids = elements(pres, "p:sldId").map((x) => x["r:id"] ?? "");
  for (const [n, id] of ids.entries()) {
    const path = `ppt/${(target.get(id) ?? "").replace(/^\/?ppt\//, "")}`;
    const part = await read(path);
    if (!part) continue;
    out.push(`## Slide ${n + 1}`, ...slideText(part));
    const slideRels = await read(path.replace(/slides\/(slide\d+\.xml)$/, "slides/_rels/$1.rels"));
    const notesTarget = slideRels
      ? elements(slideRels, "Relationship").find((r) => (r.Type ?? "").endsWith("/notesSlide"))?.Target
      : undefined;
    const notes = notesTarget ? await read(`ppt/${notesTarget.replace(/^\.\.\//, "")}`) : undefined;
    // Notes pages also hold the slide number placeholder; keep only its body text.
    if (notes) for (const line of slideText(notes).filter((l) => !/^\d+$/.test(l.trim()))) out.push(`Notes: ${line}`);
    out.push("");
  }
  return out.join("\n").trim();
}
