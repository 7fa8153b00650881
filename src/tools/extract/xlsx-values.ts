import type { HTMLElement } from "node-html-parser";
import { dateFromSerial, getFormatDateInfo, getFormatFromId, isDateFormat } from "numfmt";

/**
 * How a numeric cell reads, given its style: Excel stores dates as serial day numbers and says "date" only in
 * the cell's number format (styles.xml). Values come out as Dify's reader (pandas over openpyxl) prints them:
 * a date or date-time as `2014-01-01 00:00:00`, a time of day as `18:30:00`, any other number as its shortest
 * round-trip text (Excel writes `0.10000000000000001` for 0.1). Format codes are interpreted by numfmt.
 */
export class CellStyles {
  private readonly formats: string[];
  private readonly date1904: boolean;

  constructor(styles: HTMLElement | undefined, workbook: HTMLElement) {
    const custom = new Map<number, string>();
    // getElementsByTagName: the parser's CSS selectors lowercase names, and these tags are camel-case.
    for (const f of styles?.getElementsByTagName("numFmt") ?? []) {
      custom.set(Number(f.getAttribute("numFmtId")), decodeXml(f.getAttribute("formatCode") ?? ""));
    }
    const cellXfs = styles?.getElementsByTagName("cellXfs")[0];
    this.formats = (cellXfs?.getElementsByTagName("xf") ?? []).map((xf) => {
      const id = Number(xf.getAttribute("numFmtId") ?? 0);
      return custom.get(id) ?? builtinFormat(id);
    });
    const pr = workbook.getElementsByTagName("workbookPr")[0]?.getAttribute("date1904");
    this.date1904 = pr === "1" || pr === "true";
  }

  /** The text of a numeric cell whose stored value is `raw` and style index `s` (absent: General). */
  numeric(raw: string, s: string | undefined): string {
    const n = Number(raw);
    if (raw.trim() === "" || !Number.isFinite(n)) return raw;
    const format = s === undefined ? "" : (this.formats[Number(s)] ?? "");
    if (format && isDate(format) && n >= 0) return this.dateText(n, format);
    return String(n);
  }

  private dateText(serial: number, format: string): string {
    // The 1904 system counts from 1904-01-01; numfmt's serials count from 1900 (Excel's, leap bug included).
    const [y, mo, d, h, mi, sec] = dateFromSerial(this.date1904 ? serial + 1462 : serial);
    const time = `${pad(h)}:${pad(mi)}:${pad(sec)}`;
    const info = getFormatDateInfo(format);
    if (!info.year && !info.month && !info.day && serial < 1) return time;
    return `${y}-${pad(mo)}-${pad(d)} ${time}`;
  }
}

/** A format code from the file is hostile input: one numfmt cannot read is no date, not a failure. */
function isDate(format: string): boolean {
  try {
    return isDateFormat(format);
  } catch {
    return false;
  }
}

const pad = (n: number) => String(n).padStart(2, "0");

function builtinFormat(id: number): string {
  try {
    return getFormatFromId(id) ?? "";
  } catch {
    return "";
  }
}

function decodeXml(s: string): string {
  return s
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, "&");
}
