/**
 * Python's `str()` / `repr()` of JSON-shaped values, and Python's `str.strip()`: Chat2Workflow's
 * evaluation scripts build the judges' messages with f-strings and `str.format`, so a dict output
 * reaches the judge as `{'a': True, 'b': None}`, a list of names as `['llm', 'end']`, a float as
 * `1e-06`. Weft's values are JavaScript values, so one thing cannot be reproduced: a float with an
 * integral value (Python `3.0`) arrived as JSON and is the JavaScript number 3, printed `3`.
 */
import { WeftError } from "../../ir/errors.js";

export class PyReprError extends WeftError {}

// Python's str.isprintable() is false for these categories (and for every Z* separator but the space).
const NON_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;

function escapeChar(ch: string): string {
  const cp = ch.codePointAt(0)!;
  if (ch === "\\") return "\\\\";
  if (ch === "\n") return "\\n";
  if (ch === "\r") return "\\r";
  if (ch === "\t") return "\\t";
  if (cp < 0x20 || cp === 0x7f) return `\\x${cp.toString(16).padStart(2, "0")}`;
  if (cp < 0x7f || ch === " " || !NON_PRINTABLE.test(ch)) return ch;
  if (cp <= 0xff) return `\\x${cp.toString(16).padStart(2, "0")}`;
  if (cp <= 0xffff) return `\\u${cp.toString(16).padStart(4, "0")}`;
  return `\\U${cp.toString(16).padStart(8, "0")}`;
}

/** `repr(s)`: single quotes unless the text has a `'` and no `"` (CPython unicode_repr). */
export function pyStrRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) out += ch === quote ? `\\${ch}` : escapeChar(ch);
  return out + quote;
}

/** `repr(float)`: the shortest round-trip digits, fixed notation for exponents -4 ≤ e < 16 (float_repr_style short). */
export function pyFloatRepr(n: number): string {
  if (Number.isNaN(n)) return "nan";
  if (!Number.isFinite(n)) return n > 0 ? "inf" : "-inf";
  if (n === 0) return Object.is(n, -0) ? "-0.0" : "0.0";
  const [mant, expRaw] = n.toExponential().split("e") as [string, string];
  const exp = Number(expRaw);
  const neg = mant.startsWith("-");
  const digits = mant.replace("-", "").replace(".", "");
  let body: string;
  if (exp >= -4 && exp < 16) {
    if (exp < 0) body = `0.${"0".repeat(-exp - 1)}${digits}`;
    else if (digits.length <= exp + 1) body = `${digits}${"0".repeat(exp + 1 - digits.length)}.0`;
    else body = `${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
  } else {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    body = `${m}e${exp < 0 ? "-" : "+"}${String(Math.abs(exp)).padStart(2, "0")}`;
  }
  return neg ? `-${body}` : body;
}

/**
 * `repr(v)` of a JSON-shaped value. Integral numbers print as Python ints (JSON integers), others as
 * floats. Anything that is not JSON-shaped (a function, a class instance) is refused with a typed error.
 */
export function pyRepr(v: unknown, path = "value"): string {
  if (v === null || v === undefined) return "None";
  if (v === true) return "True";
  if (v === false) return "False";
  if (typeof v === "string") return pyStrRepr(v);
  // An integral number is a JSON integer, and Python reads the digits JSON carries (String(), not BigInt()).
  if (typeof v === "number") return Number.isInteger(v) && Math.abs(v) < 1e21 ? String(v) : pyFloatRepr(v);
  if (Array.isArray(v)) return `[${v.map((x, i) => pyRepr(x, `${path}[${i}]`)).join(", ")}]`;
  if (typeof v === "object" && (Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null)) {
    const parts = Object.entries(v as Record<string, unknown>).map(
      ([k, x]) => `${pyStrRepr(k)}: ${pyRepr(x, `${path}.${k}`)}`,
    );
    return `{${parts.join(", ")}}`;
  }
  throw new PyReprError("eval.unprintable_value", `${path} is not a JSON value (${typeof v}); it has no Python repr`, {
    field: path,
  });
}

/** `str(v)`: a string is itself, anything else its repr (as f"{v}" and str.format print it). */
export function pyStr(v: unknown, path = "value"): string {
  return typeof v === "string" ? v : pyRepr(v, path);
}

// str.strip() with no argument strips what str.isspace() accepts (Unicode White_Space plus \x1c-\x1f).
const PY_SPACE =
  "\t\n\v\f\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000";

/** Python `s.strip(chars)`: removes any of `chars` (default: whitespace) from both ends. */
export function pyStrip(s: string, chars: string = PY_SPACE): string {
  let a = 0;
  let b = s.length;
  while (a < b && chars.includes(s[a]!)) a++;
  while (b > a && chars.includes(s[b - 1]!)) b--;
  return s.slice(a, b);
}
