import { parse } from "node-html-parser";
import { DocumentError } from "../errors.js";
import type { ExtractLimits } from "./limits.js";
import { readOoxmlParts } from "./ooxml.js";
import { markdownTable } from "./text.js";
import { CellStyles } from "./xlsx-values.js";

/** Column letters of a cell reference (`BC12` → 54, 0-based 54) as a 0-based index. */
function columnIndex(ref: string): number {
  const letters = /^[A-Z]+/.exec(ref)?.[0] ?? "A";
  let n = 0;
  for (const ch of letters) n = n * 26 + (ch.charCodeAt(0) - 64);
  return n - 1;
}

function xml(text: string) {
  return parse(text, { lowerCaseTagName: false, comment: false });
}

/**
 * Each worksheet as `## <sheet name>` plus a markdown table, rows that are entirely empty dropped
 * (pandas `dropna(how="all")` in Dify). Cell values are the stored values: shared and inline strings,
 * numbers (dates and times by their number format, see xlsx-values.ts), booleans as TRUE/FALSE; formulas give
 * their cached result.
 */
export async function xlsxToText(bytes: Uint8Array, limits: ExtractLimits): Promise<string> {
  const parts = await readOoxmlParts(bytes, limits, "XLSX file");
  const read = async (p: string) => parts.get(p);
  const workbook = await read("xl/workbook.xml");
  if (!workbook) throw new DocumentError("document.extract_failed", "XLSX file: xl/workbook.xml is missing");

  const shared: string[] = [];
  const sst = await read("xl/sharedStrings.xml");
  if (sst) {
    for (const si of xml(sst).querySelectorAll("si")) {
      shared.push(
        si
          .querySelectorAll("t")
          .map((t) => t.textContent)
          .join(""),
      );
    }
  }
  const rels = new Map<string, string>();
  const relXml = await read("xl/_rels/workbook.xml.rels");
  if (relXml) {
    for (const r of xml(relXml).querySelectorAll("Relationship")) {
      const target = r.getAttribute("Target") ?? "";
      rels.set(r.getAttribute("Id") ?? "", target.startsWith("/") ? target.slice(1) : `xl/${target}`);
    }
  }

  const book = xml(workbook);
  const stylesXml = await read("xl/styles.xml");
  const styles = new CellStyles(stylesXml ? xml(stylesXml) : undefined, book);
  const sections: string[] = [];
  const sheets = book.querySelectorAll("sheet");
  for (const [i, sheet] of sheets.entries()) {
    const name = sheet.getAttribute("name") ?? `Sheet${i + 1}`;
    const path = rels.get(sheet.getAttribute("r:id") ?? "") ?? `xl/worksheets/sheet${i + 1}.xml`;
    const body = await read(path);
    if (!body) continue;
    const rows: string[][] = [];
    for (const row of xml(body).querySelectorAll("row")) {
      const cells: string[] = [];
      for (const c of row.querySelectorAll("c")) {
        const type = c.getAttribute("t");
        const v = c.querySelector("v")?.textContent ?? "";
        let value: string;
        if (type === "s") value = shared[Number(v)] ?? "";
        else if (type === "inlineStr")
          value = c
            .querySelectorAll("t")
            .map((t) => t.textContent)
            .join("");
        else if (type === "b") value = v === "1" ? "TRUE" : "FALSE";
        else if (!type || type === "n") value = styles.numeric(v, c.getAttribute("s"));
        else value = v;
        cells[columnIndex(c.getAttribute("r") ?? "")] = decodeEntities(value);
      }
      const filled = Array.from(cells, (x) => x ?? "");
      if (filled.some((x) => x.trim() !== "")) rows.push(filled);
    }
    if (rows.length > 0)
      sections.push(sheets.length > 1 ? `## ${name}\n\n${markdownTable(rows)}` : markdownTable(rows));
  }
  return sections.join("\n\n");
}

function decodeEntities(s: string): string {
  return s
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&#(\d+);/g, (_, d: string) => String.fromCodePoint(Number(d)))
    .replace(/&amp;/g, "&");
}
