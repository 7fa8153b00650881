import { DocumentError } from "../errors.js";

/**
 * Decode text bytes: UTF-8 (BOM stripped) first, as Dify does; GB18030 as a fallback because many
 * real inputs for these workflows are Chinese files saved by Windows tools.
 */
export function decodeText(bytes: Uint8Array, what = "text file"): string {
  for (const enc of ["utf-8", "gb18030"]) {
    try {
      return new TextDecoder(enc, { fatal: true, ignoreBOM: false }).decode(bytes);
    } catch {
      // try the next encoding
    }
  }
  throw new DocumentError("document.extract_failed", `${what}: bytes are neither UTF-8 nor GB18030 text`);
}

/** A markdown pipe table; cells have `|` escaped and newlines flattened so the table stays one row per line. */
export function markdownTable(rows: string[][]): string {
  if (rows.length === 0) return "";
  const cell = (s: string) => s.replace(/\|/g, "\\|").replace(/\r?\n/g, " ");
  const width = Math.max(...rows.map((r) => r.length));
  const line = (r: string[]) => `| ${Array.from({ length: width }, (_, i) => cell(r[i] ?? "")).join(" | ")} |`;
  const [head, ...body] = rows;
  return [line(head ?? []), `| ${Array(width).fill("---").join(" | ")} |`, ...body.map(line)].join("\n");
}
