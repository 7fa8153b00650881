/**
 * PyYAML's implicit resolvers (YAML 1.1 as `yaml.safe_load` applies them), shared by the reader, which builds
 * values with them, and the writer, which quotes every string they would read as something else. They differ from
 * YAML 1.2 and from the `yaml` package's 1.1 schema in ways that change values: `y`/`n` are strings, `1e5` is a
 * string (a float needs a dot and a signed exponent), `09` is a string.
 */

export const BOOL_TRUE = /^(?:yes|Yes|YES|true|True|TRUE|on|On|ON)$/;
export const BOOL_FALSE = /^(?:no|No|NO|false|False|FALSE|off|Off|OFF)$/;
export const NULL = /^(?:~|null|Null|NULL|)$/;
export const INT_BIN = /^[-+]?0b[0-1_]+$/;
export const INT_OCT = /^[-+]?0[0-7_]+$/;
export const INT_DEC = /^[-+]?(?:0|[1-9][0-9_]*)$/;
export const INT_HEX = /^[-+]?0x[0-9a-fA-F_]+$/;
export const INT_SEX = /^[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+$/;
export const FLOAT = /^(?:[-+]?[0-9][0-9_]*\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?)$/;
export const FLOAT_SEX = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*$/;
export const FLOAT_INF = /^[-+]?\.(?:inf|Inf|INF)$/;
export const FLOAT_NAN = /^\.(?:nan|NaN|NAN)$/;
export const TIMESTAMP =
  /^(?:[0-9]{4}-[0-9]{2}-[0-9]{2}|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?)$/;
/** PyYAML resolves a plain `=` to tag:yaml.org,2002:value, which safe_load cannot construct: it must be quoted. */
export const VALUE_KEY = /^=$/;
/** A plain `<<` is a merge key to both readers; as data it must be quoted. */
export const MERGE_KEY = /^<<$/;

export const INT_FORMS = [INT_BIN, INT_HEX, INT_OCT, INT_DEC, INT_SEX];
export const FLOAT_FORMS = [FLOAT, FLOAT_SEX, FLOAT_INF, FLOAT_NAN];

function signOf(s: string): { sign: number; rest: string } {
  if (s.startsWith("-")) return { sign: -1, rest: s.slice(1) };
  if (s.startsWith("+")) return { sign: 1, rest: s.slice(1) };
  return { sign: 1, rest: s };
}

function sexagesimal(rest: string): number {
  return rest.split(":").reduce((acc, part) => acc * 60 + Number(part), 0);
}

export function resolveInt(src: string): number {
  const { sign, rest: raw } = signOf(src.replace(/_/g, ""));
  let n: number;
  if (raw.startsWith("0b")) n = Number.parseInt(raw.slice(2), 2);
  else if (raw.startsWith("0x")) n = Number.parseInt(raw.slice(2), 16);
  else if (raw.includes(":")) n = sexagesimal(raw);
  else if (raw.length > 1 && raw.startsWith("0")) n = Number.parseInt(raw.slice(1) || "0", 8);
  else n = Number.parseInt(raw, 10);
  // `-0` is the integer 0 to Python; only floats carry a sign on zero.
  return sign * n || 0;
}

export function resolveFloat(src: string): number {
  const { sign, rest } = signOf(src.replace(/_/g, ""));
  if (FLOAT_NAN.test(src)) return Number.NaN;
  if (/^\.inf$/i.test(rest)) return sign * Number.POSITIVE_INFINITY;
  if (rest.includes(":")) return sign * sexagesimal(rest);
  return sign * Number.parseFloat(rest);
}

/** A number written so PyYAML reads the same number back (floats need a dot and a signed exponent). */
export function pyNumber(value: number): string {
  if (Number.isNaN(value)) return ".nan";
  if (value === Number.POSITIVE_INFINITY) return ".inf";
  if (value === Number.NEGATIVE_INFINITY) return "-.inf";
  if (Object.is(value, -0)) return "-0";
  const s = String(value);
  const e = s.indexOf("e");
  if (e < 0) return s;
  let mantissa = s.slice(0, e);
  let exp = s.slice(e + 1);
  if (!mantissa.includes(".")) mantissa += ".0";
  if (!exp.startsWith("-") && !exp.startsWith("+")) exp = `+${exp}`;
  return `${mantissa}e${exp}`;
}
