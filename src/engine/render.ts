import { replaceTemplateRefs } from "../ir/selector.js";

function isFile(v: unknown): v is Record<string, unknown> {
  return !!v && typeof v === "object" && "transfer_method" in (v as object);
}

function pyScalar(v: unknown): string {
  if (v === null || v === undefined) return "";
  if (v === true) return "True";
  if (v === false) return "False";
  return String(v);
}

/** How a value reads inside LLM prompts, HTTP requests and tool parameters (Dify segment `.text`). */
export function valueToText(v: unknown): string {
  if (v === null || v === undefined) return "";
  if (typeof v === "string") return v;
  if (isFile(v)) return String(v.remote_url ?? v.url ?? v.filename ?? "");
  if (typeof v === "object") return JSON.stringify(v);
  return pyScalar(v);
}

/** The "markdown" rendering used by answer nodes: indented JSON objects, `- item` lists, file links. */
export function valueToMarkdown(v: unknown): string {
  if (v === null || v === undefined) return "";
  if (typeof v === "string") return v;
  if (isFile(v)) {
    const url = String(v.remote_url ?? v.url ?? "");
    const name = String(v.filename ?? "file");
    return v.type === "image" ? `![${name}](${url})` : `[${name}](${url})`;
  }
  // Dify's ArrayFileSegment renders one file link per line, without the list marker.
  if (Array.isArray(v) && v.length > 0 && v.every(isFile)) return v.map(valueToMarkdown).join("\n");
  if (Array.isArray(v))
    return v
      .map((x) => `- ${typeof x === "object" && x !== null && !isFile(x) ? JSON.stringify(x) : valueToMarkdown(x)}`)
      .join("\n");
  if (typeof v === "object") return JSON.stringify(v, null, 2);
  return pyScalar(v);
}

/**
 * Render Dify `{{#id.var#}}` text. An unresolved reference renders as its bare `id.var` text, which
 * is what Dify does (surprising, but files depend on it).
 */
export function renderTemplate(
  text: string,
  read: (sel: readonly string[]) => { found: boolean; value?: unknown },
  style: "text" | "markdown" = "text",
): string {
  const fmt = style === "markdown" ? valueToMarkdown : valueToText;
  return replaceTemplateRefs(text, (sel) => {
    const r = read(sel);
    return r.found ? fmt(r.value) : sel.join(".");
  });
}
