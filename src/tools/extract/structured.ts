import { parseAllDocuments, stringify } from "yaml";
import { DocumentError } from "../errors.js";

/** JSON re-indented by 2 with non-ASCII kept, as Dify's `json.dumps(indent=2, ensure_ascii=False)`. */
export function jsonToText(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch (e) {
    throw new DocumentError("document.extract_failed", `JSON file: ${(e as Error).message}`);
  }
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
