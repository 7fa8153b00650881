import { type CollectionTag, parseDocument, type ScalarTag, stringify, type Tags } from "yaml";

/**
 * YAML as Dify reads and writes it. Dify uses PyYAML (`safe_load` / `dump`), i.e. YAML 1.1 with PyYAML's own
 * implicit resolvers, which differ from the `yaml` package's 1.1 schema in ways that change values:
 * `y`/`n` are strings (not booleans), `1e5` is a string (a float needs a dot and a signed exponent), `09` is a
 * string. Real exports rely on this — PyYAML leaves such strings unquoted — so the reader reproduces PyYAML's
 * resolvers exactly, and the writer quotes every string PyYAML would otherwise read as something else.
 *
 * Timestamps are kept as strings on read (PyYAML would build datetimes, which Dify cannot store anyway); on write
 * timestamp-looking strings are quoted so PyYAML keeps them strings too.
 */

const BOOL_TRUE = /^(?:yes|Yes|YES|true|True|TRUE|on|On|ON)$/;
const BOOL_FALSE = /^(?:no|No|NO|false|False|FALSE|off|Off|OFF)$/;
const INT_BIN = /^[-+]?0b[0-1_]+$/;
const INT_OCT = /^[-+]?0[0-7_]+$/;
const INT_DEC = /^[-+]?(?:0|[1-9][0-9_]*)$/;
const INT_HEX = /^[-+]?0x[0-9a-fA-F_]+$/;
const INT_SEX = /^[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+$/;
const FLOAT = /^(?:[-+]?[0-9][0-9_]*\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?)$/;
const FLOAT_SEX = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*$/;
const FLOAT_INF = /^[-+]?\.(?:inf|Inf|INF)$/;
const FLOAT_NAN = /^\.(?:nan|NaN|NAN)$/;
const TIMESTAMP =
  /^(?:[0-9]{4}-[0-9]{2}-[0-9]{2}|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?)$/;
/** PyYAML resolves a plain `=` to tag:yaml.org,2002:value, which safe_load cannot construct: it must be quoted. */
const VALUE_KEY = /^=$/;
/** A plain `<<` is a merge key to both readers; as data it must be quoted. */
const MERGE_KEY = /^<<$/;

function signOf(s: string): { sign: number; rest: string } {
  if (s.startsWith("-")) return { sign: -1, rest: s.slice(1) };
  if (s.startsWith("+")) return { sign: 1, rest: s.slice(1) };
  return { sign: 1, rest: s };
}

function sexagesimal(rest: string): number {
  return rest.split(":").reduce((acc, part) => acc * 60 + Number(part), 0);
}

function resolveInt(src: string): number {
  const { sign, rest: raw } = signOf(src.replace(/_/g, ""));
  let n: number;
  if (raw.startsWith("0b")) n = Number.parseInt(raw.slice(2), 2);
  else if (raw.startsWith("0x")) n = Number.parseInt(raw.slice(2), 16);
  else if (raw.includes(":")) n = sexagesimal(raw);
  else if (raw.length > 1 && raw.startsWith("0")) n = Number.parseInt(raw.slice(1) || "0", 8);
  else n = Number.parseInt(raw, 10);
  return sign * n;
}

function resolveFloat(src: string): number {
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

const never = (): boolean => false;
const boolTag = (value: boolean, test: RegExp): ScalarTag => ({
  tag: "tag:yaml.org,2002:bool",
  default: true,
  identify: (v) => v === value,
  test,
  resolve: () => value,
  stringify: () => (value ? "true" : "false"),
});
const parseOnly = (tag: string, test: RegExp, resolve: (s: string) => unknown): ScalarTag => ({
  tag,
  default: true,
  identify: never,
  test,
  resolve,
});
/** Present only so the writer quotes strings that match; never used to build a value. */
const quoteOnly = (tag: string, test: RegExp): ScalarTag => ({
  tag,
  default: true,
  identify: never,
  test,
  resolve: (s) => s,
});
const numberTag: ScalarTag = {
  tag: "tag:yaml.org,2002:float",
  default: true,
  identify: (v) => typeof v === "number",
  test: FLOAT,
  resolve: resolveFloat,
  stringify: (item) => pyNumber(Number(item.value)),
};

const KEPT_BASE = new Set([
  "tag:yaml.org,2002:map",
  "tag:yaml.org,2002:seq",
  "tag:yaml.org,2002:str",
  "tag:yaml.org,2002:null",
  "tag:yaml.org,2002:merge",
]);

/**
 * Characters PyYAML's reader refuses (C1 controls, U+FFFE/U+FFFF) or reads as line breaks (NEL, LS, PS). The
 * `yaml` package writes them raw, so strings holding them are written double-quoted with escapes instead.
 */
const PY_UNSAFE = /[\x7f-\x9f\u2028\u2029\uFFFE\uFFFF]/;
const PY_UNSAFE_ALL = /[\x7f-\x9f\u2028\u2029\uFFFE\uFFFF]/g;

function escapeUnsafe(c: string): string {
  if (c === "\x85") return "\\N";
  if (c === "\u2028") return "\\L";
  if (c === "\u2029") return "\\P";
  const code = c.charCodeAt(0);
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
}

/** A one-line double-quoted scalar; JSON's escapes are all valid YAML escapes. */
export function pyDoubleQuoted(value: string): string {
  return JSON.stringify(value).replace(PY_UNSAFE_ALL, escapeUnsafe);
}

function pyTags(forWriting: boolean): (base: Tags) => Tags {
  return (base) => {
    // The writer must not know merge keys: that tag would print the string "<<" bare.
    const kept = base
      .filter(
        (t) => typeof t !== "string" && KEPT_BASE.has(t.tag) && !(forWriting && t.tag === "tag:yaml.org,2002:merge"),
      )
      .map((t): ScalarTag | CollectionTag => {
        const tag = t as ScalarTag | CollectionTag;
        if (!forWriting || tag.tag !== "tag:yaml.org,2002:str" || tag.collection) return tag;
        const plain = tag.stringify;
        return {
          ...tag,
          stringify: (item, ctx, onComment, onChompKeep) => {
            const v = item.value;
            if (typeof v === "string" && PY_UNSAFE.test(v)) return pyDoubleQuoted(v);
            return plain ? plain(item, ctx, onComment, onChompKeep) : String(v);
          },
        };
      });
    const tags: Tags = [
      ...kept,
      boolTag(true, BOOL_TRUE),
      boolTag(false, BOOL_FALSE),
      parseOnly("tag:yaml.org,2002:int", INT_BIN, resolveInt),
      parseOnly("tag:yaml.org,2002:int", INT_HEX, resolveInt),
      parseOnly("tag:yaml.org,2002:int", INT_OCT, resolveInt),
      parseOnly("tag:yaml.org,2002:int", INT_DEC, resolveInt),
      parseOnly("tag:yaml.org,2002:int", INT_SEX, resolveInt),
      parseOnly("tag:yaml.org,2002:float", FLOAT_SEX, resolveFloat),
      parseOnly("tag:yaml.org,2002:float", FLOAT_INF, resolveFloat),
      parseOnly("tag:yaml.org,2002:float", FLOAT_NAN, resolveFloat),
      numberTag,
    ];
    if (forWriting) {
      tags.push(
        quoteOnly("tag:yaml.org,2002:timestamp", TIMESTAMP),
        quoteOnly("tag:yaml.org,2002:value", VALUE_KEY),
        quoteOnly("tag:yaml.org,2002:merge", MERGE_KEY),
      );
    }
    return tags;
  };
}

export interface YamlProblem {
  message: string;
  line?: number;
  col?: number;
}

export type YamlReadResult = { ok: true; value: unknown; warnings: YamlProblem[] } | { ok: false; error: YamlProblem };

function problem(e: { message: string; linePos?: [{ line: number; col: number }, ...unknown[]] }): YamlProblem {
  const pos = e.linePos?.[0];
  // The yaml library ends its first line with the position; callers give the position once themselves.
  const first = (e.message.split("\n")[0] ?? e.message).replace(/ at line \d+, column \d+:?\s*$/, "");
  return pos ? { message: first, line: pos.line, col: pos.col } : { message: first };
}

/** Parse YAML the way PyYAML's safe_load would; never throws. */
export function readYaml(text: string): YamlReadResult {
  try {
    const doc = parseDocument(text, {
      version: "1.1",
      schema: "yaml-1.1",
      customTags: pyTags(false),
      uniqueKeys: false,
      prettyErrors: true,
    });
    if (doc.errors.length > 0) {
      const e = doc.errors[0];
      return { ok: false, error: e ? problem(e) : { message: "invalid YAML" } };
    }
    const value = doc.toJS({ maxAliasCount: 100 });
    return { ok: true, value, warnings: doc.warnings.map(problem) };
  } catch (err) {
    // toJS throws on unresolved aliases or alias bombs; those are malformed documents, not bugs.
    return { ok: false, error: { message: err instanceof Error ? err.message : String(err) } };
  }
}

/** Write YAML in Dify's export style (sorted keys, unindented sequences, unicode kept) that PyYAML reads back. */
export function writeYaml(value: unknown): string {
  return stringify(value, {
    version: "1.1",
    schema: "yaml-1.1",
    customTags: pyTags(true),
    merge: false,
    sortMapEntries: true,
    lineWidth: 0,
    // Multi-line double-quoted output mangles lines that start with a space (yaml 2.9.1); keep one line.
    doubleQuotedMinMultiLineLength: Number.MAX_SAFE_INTEGER,
    indentSeq: false,
    aliasDuplicateObjects: false,
  });
}
