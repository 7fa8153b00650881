import { parse } from "csv-parse/sync";

/**
 * A CSV reader that types cells the way `pandas.read_csv` does with default options, because the original
 * tools compare pandas-typed cells (`df[df.col == arg]`) and return numpy values.
 */
export type Cell = string | number | boolean | null;
export type Row = Record<string, Cell>;
export type Dtype = "bool" | "int" | "float" | "str";

export interface Table {
  columns: string[];
  dtypes: Record<string, Dtype>;
  rows: Row[];
}

/** pandas' default `na_values` (a cell equal to one of these is NaN, read here as null). */
export const PANDAS_NA = new Set([
  "",
  "#N/A",
  "#N/A N/A",
  "#NA",
  "-1.#IND",
  "-1.#QNAN",
  "-NaN",
  "-nan",
  "1.#IND",
  "1.#QNAN",
  "<NA>",
  "N/A",
  "NA",
  "NULL",
  "NaN",
  "None",
  "n/a",
  "nan",
  "null",
]);

const TRUE = new Set(["True", "TRUE", "true"]);
const FALSE = new Set(["False", "FALSE", "false"]);
const INT = /^[+-]?\d+$/;
const FLOAT = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$|^[+-]?(inf|Infinity)$/i;

function inferDtype(values: string[]): Dtype {
  const present = values.filter((v) => !PANDAS_NA.has(v));
  if (present.length === 0) return "float"; // an all-NaN column is float64 in pandas
  if (present.every((v) => TRUE.has(v) || FALSE.has(v))) return "bool";
  if (present.every((v) => INT.test(v.trim()))) return present.length === values.length ? "int" : "float";
  if (present.every((v) => FLOAT.test(v.trim()))) return "float";
  return "str";
}

function typeCell(v: string, dtype: Dtype): Cell {
  if (PANDAS_NA.has(v)) return null;
  switch (dtype) {
    case "bool":
      return TRUE.has(v);
    case "int":
    case "float":
      return Number(v.trim().replace(/^([+-]?)inf$/i, "$1Infinity"));
    default:
      return v;
  }
}

export function readTable(text: string): Table {
  const records = parse(text, {
    columns: false,
    skip_empty_lines: true,
    relax_column_count: true,
    bom: true,
  }) as string[][];
  const header = records[0] ?? [];
  const body = records.slice(1);
  const dtypes: Record<string, Dtype> = {};
  header.forEach((col, j) => {
    dtypes[col] = inferDtype(body.map((r) => r[j] ?? ""));
  });
  const rows = body.map((r) => {
    const row: Row = {};
    header.forEach((col, j) => {
      row[col] = typeCell(r[j] ?? "", dtypes[col] as Dtype);
    });
    return row;
  });
  return { columns: header, dtypes, rows };
}

/** Python's `str()` of a pandas cell: floats keep a ".0", NaN is "nan", bools are "True"/"False". */
export function pyStr(v: Cell, dtype?: Dtype): string {
  if (v === null) return "nan";
  if (typeof v === "boolean") return v ? "True" : "False";
  if (typeof v === "number") {
    if (Number.isNaN(v)) return "nan";
    if (!Number.isFinite(v)) return v > 0 ? "inf" : "-inf";
    if (dtype === "int") return String(v);
    if (Number.isInteger(v) && Math.abs(v) < 1e16) return `${v}.0`;
    return String(v).replace(/e([+-])(\d)$/, "e$10$2");
  }
  return v;
}
