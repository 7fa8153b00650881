import { parseAllDocuments, stringify } from "yaml";
import { DocumentError } from "../errors.js";
import { DEFAULT_EXTRACT_LIMITS, type ExtractLimits } from "./limits.js";

/**
 * JSON re-indented by 2 with non-ASCII kept, as Dify's `json.dumps(indent=2, ensure_ascii=False)`.
 * Nesting past the limit is refused before parsing: a million nested arrays is 2 MB of text but
 * hundreds of MB of parsed arrays, and JSON.stringify recurses per level.
 */
export function jsonToText(text: string, limits: Pick<ExtractLimits, "maxDepth"> = DEFAULT_EXTRACT_LIMITS): string {
  if (jsonNestsDeeper(text, limits.maxDepth)) {
    throw new DocumentError("document.too_complex", `JSON file: values are nested more than ${limits.maxDepth} deep`, {
      limit: "maxDepth",
      maxDepth: limits.maxDepth,
    });
  }
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch (e) {
    throw new DocumentError("document.extract_failed", `JSON file: ${(e as Error).message}`);
  }
}

/** Whether brackets outside strings nest deeper than `max` (a linear scan; malformed text is JSON.parse's to report). */
function jsonNestsDeeper(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/** Every YAML document re-dumped, key order kept. */
export function yamlToText(text: string): string {
  const docs = parseAllDocuments(text);
  const list = Array.isArray(docs) ? docs : [docs];
  const out: string[] = [];
  for (const d of list) {
    if (d.errors.length > 0) {
      throw new DocumentError("document.extract_failed", `YAML file: ${d.errors[0]?.message ?? "invalid YAML"}`);
    }
    const v = d.toJS();
    if (v !== null && v !== undefined) out.push(stringify(v, { lineWidth: 0 }).trimEnd());
  }
  return out.join("\n---\n");
}

/** Java-style `.properties`: `key=value`, `key: value` or `key value`, `#`/`!` comments, `\` continuations. */
export function propertiesToText(text: string): string {
  const out: string[] = [];
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  for (let i = 0; i < lines.length; i++) {
    let line = (lines[i] ?? "").trim();
    if (!line || line.startsWith("#") || line.startsWith("!")) continue;
    while (line.endsWith("\\") && i + 1 < lines.length) line = line.slice(0, -1) + (lines[++i] ?? "").trim();
    const m = /^((?:\\.|[^=:\s])+)\s*[=:\s]\s*(.*)$/.exec(line);
    const key = (m ? m[1] : line)?.replace(/\\(.)/g, "$1") ?? "";
    out.push(`${key}: ${m?.[2] ?? ""}`);
  }
  return out.join("\n");
}

/** WebVTT cues as `Speaker "text"` lines, consecutive cues of one speaker merged (Dify's layout). */
export function vttToText(text: string): string {
  const blocks = text.replace(/\r\n?/g, "\n").split(/\n{2,}/);
  const merged: Array<{ speaker: string; text: string }> = [];
  for (const block of blocks) {
    const lines = block.split("\n");
    const at = lines.findIndex((l) => l.includes("-->"));
    if (at < 0) continue; // header, NOTE, STYLE blocks
    const body = lines
      .slice(at + 1)
      .join(" ")
      .trim();
    if (!body) continue;
    const voice = /^<v(?:\.[^\s>]*)?\s+([^>]+)>([\s\S]*?)(?:<\/v>)?$/.exec(body);
    const speaker = voice ? (voice[1] ?? "").trim() : "";
    const said = (voice ? (voice[2] ?? "") : body).replace(/<[^>]+>/g, "").trim();
    const last = merged[merged.length - 1];
    if (last && last.speaker === speaker) last.text += ` ${said}`;
    else merged.push({ speaker, text: said });
  }
  return merged.map((m) => (m.speaker ? `${m.speaker} "${m.text}"` : `"${m.text}"`)).join("\n");
}
