import { createRequire } from "node:module";
import type { FileValue } from "../ir/services.js";

// mime-types parses all of mime-db (~200 KB of JSON) when loaded, ~35 ms of CPU that a command pays only once
// it looks a type up (`weft run` of a workflow without files never does).
let mimeTypes: typeof import("mime-types") | undefined;
const mime = () => (mimeTypes ??= createRequire(import.meta.url)("mime-types") as typeof import("mime-types"));

/** Extension (with dot, lower case) of a filename, or "" when it has none. */
export function extensionOf(filename: string): string {
  const base = filename.split(/[\\/]/).pop() ?? "";
  const i = base.lastIndexOf(".");
  return i > 0 ? base.slice(i).toLowerCase() : "";
}

export function mimeForExtension(ext: string): string | undefined {
  const e = ext.replace(/^\./, "").toLowerCase();
  if (!e) return undefined;
  // mime-db has no entry for these, and Dify files carry them.
  if (e === "md" || e === "markdown") return "text/markdown";
  if (e === "properties") return "text/x-java-properties";
  return mime().lookup(e) || undefined;
}

export function extensionForMime(mimeType: string): string {
  const e = mime().extension(mimeType.split(";")[0]?.trim() ?? "");
  return e ? `.${e}` : "";
}

const DOCUMENT_EXTENSIONS = new Set([
  ".txt",
  ".md",
  ".markdown",
  ".mdx",
  ".pdf",
  ".html",
  ".htm",
  ".xlsx",
  ".xls",
  ".doc",
  ".docx",
  ".csv",
  ".eml",
  ".msg",
  ".pptx",
  ".ppt",
  ".xml",
  ".epub",
  ".json",
  ".yaml",
  ".yml",
  ".vtt",
  ".properties",
]);

/** Dify's file `type` category, decided by extension first (as Dify does), then MIME type. */
export function fileCategory(extension: string, mimeType: string): FileValue["type"] {
  if (DOCUMENT_EXTENSIONS.has(extension)) return "document";
  const major = mimeType.split("/")[0];
  if (major === "image") return "image";
  if (major === "audio") return "audio";
  if (major === "video") return "video";
  if (major === "text") return "document";
  return "custom";
}
