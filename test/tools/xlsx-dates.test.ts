import { existsSync, readFileSync } from "node:fs";
import JSZip from "jszip";
import { describe, expect, it } from "vitest";
import { DEFAULT_EXTRACT_LIMITS } from "../../src/tools/extract/limits.js";
import { xlsxToText } from "../../src/tools/extract/xlsx.js";
import { corpusPath } from "../support/corpus.js";

const NS = `xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"`;

/** One sheet; each cell `[value, styleIndex]`; styles: 0 General, 1 m/d/yyyy (id 14), 2 a custom date-time, 3 h:mm (id 20), 4 0.00% (id 10). */
async function sheet(cells: Array<[string, number]>, date1904 = false): Promise<Uint8Array> {
  const zip = new JSZip();
  zip.file(
    "xl/workbook.xml",
    `<workbook ${NS} xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">${date1904 ? '<workbookPr date1904="1"/>' : ""}<sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>`,
  );
  zip.file(
    "xl/_rels/workbook.xml.rels",
    `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>`,
  );
  zip.file(
    "xl/styles.xml",
    `<styleSheet ${NS}><numFmts count="1"><numFmt numFmtId="164" formatCode="yyyy\\-mm\\-dd&quot; at &quot;hh:mm"/></numFmts><cellXfs count="5"><xf numFmtId="0"/><xf numFmtId="14" applyNumberFormat="1"/><xf numFmtId="164" applyNumberFormat="1"/><xf numFmtId="20" applyNumberFormat="1"/><xf numFmtId="10" applyNumberFormat="1"/></cellXfs></styleSheet>`,
  );
  const row = cells.map(([v, s], i) => `<c r="${String.fromCharCode(65 + i)}1" s="${s}"><v>${v}</v></c>`).join("");
  zip.file("xl/worksheets/sheet1.xml", `<worksheet ${NS}><sheetData><row r="1">${row}</row></sheetData></worksheet>`);
  return new Uint8Array(await zip.generateAsync({ type: "uint8array" }));
}

const cellsOf = async (bytes: Uint8Array) => (await xlsxToText(bytes, DEFAULT_EXTRACT_LIMITS)).split("\n")[0]!;

// Excel keeps dates as serial day numbers; only the cell's number format says "date". Dify's reader (pandas
// over openpyxl) prints them as date-times, so the extractor must too (it printed 41640 for 2014-01-01).
describe("xlsx cells read by their number format", () => {
  it("dates, date-times and times of day come out as Dify prints them; other numbers as numbers", async () => {
    const text = await cellsOf(
      await sheet([
        ["41640", 1],
        ["45306.75", 2],
        ["0.5208333333333334", 3],
        ["0.125", 4],
        ["0.10000000000000001", 0],
        ["42", 0],
      ]),
    );
    expect(text).toBe("| 2014-01-01 00:00:00 | 2024-01-15 18:00:00 | 12:30:00 | 0.125 | 0.1 | 42 |");
  });

  it("a workbook on the 1904 date system", async () => {
    expect(await cellsOf(await sheet([["40178", 1]], true))).toBe("| 2014-01-01 00:00:00 |");
  });

  it("the Lotus leap-year bug: serial 60 is Excel's 1900-02-29 and 61 is 1900-03-01", async () => {
    expect(
      await cellsOf(
        await sheet([
          ["61", 1],
          ["59", 1],
        ]),
      ),
    ).toBe("| 1900-03-01 00:00:00 | 1900-02-28 00:00:00 |");
  });

  const real = corpusPath("chat2workflow", "case_files", "PerformanceChart_0001.xlsx");
  it.skipIf(!existsSync(real))("a real workbook from the corpus: order and ship dates", async () => {
    const text = await xlsxToText(new Uint8Array(readFileSync(real)), DEFAULT_EXTRACT_LIMITS);
    const first = text.split("\n")[2]!;
    expect(first).toContain("| 1 | CA-2016-152156 | 2016-11-08 00:00:00 | 2016-11-11 00:00:00 | Second Class |");
    expect(first).toContain("| 261.96 |");
  });
});
