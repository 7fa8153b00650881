import { parseAllDocuments, stringify } from "yaml";
import { depthExceededAt } from "../../util/hostile-json.js";
import { DocumentError } from "../errors.js";
import { DEFAULT_EXTRACT_LIMITS, type ExtractLimits } from "./limits.js";

/**
 * JSON re-indented by 2 with non-ASCII kept, as Dify's `json.dumps(indent=2, ensure_ascii=False)`.
 * Nesting past the limit is refused before parsing: a million nested arrays is 2 MB of text but
 * hundreds of MB of parsed arrays, and JSON.stringify recurses per level.
 */
export function jsonToText(text: string, limits: Pick<ExtractLimits, "maxDepth"> = DEFAULT_EXTRACT_LIMITS): string {
  if (depthExceededAt(text, limits.maxDepth) >= 0) {
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

/**
 * Whether YAML nests deeper than `max`: block nesting by the stack of indentation columns (a `- ` or
 * `? ` indicator opens a level too, so `- - - x` counts three), plus flow brackets outside quotes and
 * comments. An over-estimate at worst (brackets in block scalars count), never an under-estimate.
 */
function yamlNestsDeeper(text: string, max: number): boolean {
  const indents: number[] = [];
  let flow = 0;
  for (const line of text.split(/\r?\n/)) {
    let col = 0;
    while (col < line.length) {
      const c = line[col];
      if (c === " ") col++;
      else if ((c === "-" || c === "?") && (line[col + 1] === " " || col + 1 === line.length)) {
        while (indents.length > 0 && (indents[indents.length - 1] as number) >= col) indents.pop();
        indents.push(col);
        col += 2;
      } else break;
    }
    if (col >= line.length || line[col] === "#") continue;
    if (flow === 0) {
      while (indents.length > 0 && (indents[indents.length - 1] as number) >= col) indents.pop();
      indents.push(col);
    }
    const scanned = flowDepths(line, col, flow);
    if (indents.length + scanned.peak > max) return true;
    flow = scanned.after;
  }
  return false;
}

/** Flow nesting within and after one line, from `flow` before it; quoted scalars and comments skipped. */
function flowDepths(line: string, from: number, flow: number): { peak: number; after: number } {
  let peak = flow;
  let quote = "";
  for (let i = from; i < line.length; i++) {
    const c = line[i];
    if (quote) {
      if (c === "\\" && quote === '"') i++;
      else if (c === quote) quote = "";
    } else if (c === '"' || c === "'") quote = c;
    else if (c === "#" && (i === 0 || line[i - 1] === " ")) break;
    else if (c === "[" || c === "{") peak = Math.max(peak, ++flow);
    else if ((c === "]" || c === "}") && flow > 0) flow--;
  }
  return { peak, after: flow };
}

/**
 * Every YAML document re-dumped, key order kept. Nesting past the limit is refused before parsing:
 * the yaml parser recurses per level, and deep input (10k nested flow sequences, then 100k) took
 * seconds and once aborted the whole process from inside the extraction thread (a V8 regexp-compiler
 * out-of-memory, which is fatal to the process, unlike a heap limit).
 */
export function yamlToText(text: string, limits: Pick<ExtractLimits, "maxDepth"> = DEFAULT_EXTRACT_LIMITS): string {
  if (yamlNestsDeeper(text, limits.maxDepth)) {
    throw new DocumentError("document.too_complex", `YAML file: values are nested more than ${limits.maxDepth} deep`, {
      limit: "maxDepth",
      maxDepth: limits.maxDepth,
    });
  }
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
