import { type Cell, type Dtype, pyStr } from "./csv.js";
import { parsePyLiteral } from "./pyliteral.js";

/** Python truthiness, as the original `all([...])` / `if not x` guards use it. */
export function truthy(v: unknown): boolean {
  if (v === null || v === undefined || v === false || v === 0 || v === "") return false;
  if (typeof v === "number" && Number.isNaN(v)) return false;
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === "object") return Object.keys(v as object).length > 0;
  return true;
}

/**
 * pandas `==` between a typed column and an argument: bool columns equal only booleans, numeric columns only
 * numbers, text columns only identical strings; NaN equals nothing.
 */
export function cellEquals(cell: Cell, dtype: Dtype, arg: unknown, floatTolerance = 0): boolean {
  if (cell === null || arg === null || arg === undefined) return false;
  switch (dtype) {
    case "bool":
      return typeof arg === "boolean" && arg === cell;
    case "int":
      return typeof arg === "number" && arg === cell;
    case "float":
      if (typeof arg !== "number") return false;
      return floatTolerance > 0
        ? Math.abs(arg - (cell as number)) <= floatTolerance * Math.max(1, Math.abs(cell as number))
        : arg === cell;
    default:
      return typeof arg === "string" && arg === cell;
  }
}

/** Python `int(x)` for the argument types an agent can send. */
export function pyInt(v: unknown): number {
  if (typeof v === "number" && Number.isFinite(v)) return Math.trunc(v);
  if (typeof v === "boolean") return v ? 1 : 0;
  if (typeof v === "string" && /^\s*[+-]?\d+\s*$/.test(v)) return Number(v.trim());
  throw new Error(`invalid literal for int() with base 10: ${JSON.stringify(v)}`);
}

/** Converts a cell to the `type` named in a binding's `returns` (see tool_bindings.json `_about.value_types`). */
export function convertCell(cell: Cell, dtype: Dtype, type: string | undefined): unknown {
  switch (type) {
    case undefined:
      return cell;
    case "int":
      if (cell === null || typeof cell === "string") {
        if (typeof cell === "string" && /^[+-]?\d+$/.test(cell)) return Number(cell);
        throw new Error(cell === null ? "cannot convert float NaN to integer" : `invalid literal for int(): '${cell}'`);
      }
      return Math.trunc(Number(cell));
    case "float":
      if (cell === null) return null;
      return Number(cell);
    case "bool":
      // bool(NaN) is True in Python; kept so a missing flag reads the way the original read it.
      return cell === null ? true : typeof cell === "string" ? cell.length > 0 : Boolean(cell);
    case "str":
      return pyStr(cell, dtype);
    case "json":
      if (typeof cell !== "string") throw new Error(`cell is not JSON text: ${pyStr(cell, dtype)}`);
      return JSON.parse(cell);
    case "pylist":
      if (typeof cell !== "string") throw new Error(`cell is not a Python literal: ${pyStr(cell, dtype)}`);
      return parsePyLiteral(cell);
    case "nan_to_empty":
      return cell === null ? "" : cell;
    case "str_or_empty":
      return cell === null ? "" : pyStr(cell, dtype);
    case "float_or_empty":
      return cell === null ? "" : Number(cell);
    case "str_or_null":
      return cell === null ? null : pyStr(cell, dtype);
    default:
      throw new Error(`unknown return type "${type}" in tool bindings`);
  }
}

export { seededRandom } from "../../util/random.js";

export function round2(x: number): number {
  return Math.round((x + Number.EPSILON) * 100) / 100;
}
