import { parse } from "csv-parse/sync";
import { DocumentError } from "../errors.js";
import { markdownTable } from "./text.js";

/** CSV becomes a markdown table with the first row as header, which is Dify's rendering. */
export function csvToText(text: string): string {
  let rows: string[][];
  try {
    rows = parse(text, { relax_column_count: true, skip_empty_lines: true, bom: true }) as string[][];
  } catch (e) {
    throw new DocumentError("document.extract_failed", `CSV file: ${(e as Error).message}`);
  }
  return markdownTable(rows);
}
