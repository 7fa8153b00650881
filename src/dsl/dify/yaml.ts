import { type CollectionTag, type ScalarTag, stringify, type Tags } from "yaml";
import {
  BOOL_FALSE,
  BOOL_TRUE,
  FLOAT,
  FLOAT_INF,
  FLOAT_NAN,
  FLOAT_SEX,
  INT_BIN,
  INT_DEC,
  INT_HEX,
  INT_OCT,
  INT_SEX,
  MERGE_KEY,
  pyNumber,
  resolveFloat,
  resolveInt,
  TIMESTAMP,
  VALUE_KEY,
} from "./py-scalars.js";

export { readYaml, type YamlProblem, type YamlReadResult } from "./yaml-read.js";

/**
 * Writing YAML as Dify does (PyYAML's `dump`, read back by `safe_load`): the `yaml` package's writer, taught
 * PyYAML's implicit resolvers (py-scalars.ts) only so that it quotes every string PyYAML would otherwise read as
 * something else — `yes`, `=`, `2024-01-02`, `<<`, `0.4` — and writes floats in a form PyYAML reads as floats.
 * Reading lives in yaml-read.ts.
 */

const never = (): boolean => false;
const boolTag = (value: boolean, test: RegExp): ScalarTag => ({
  tag: "tag:yaml.org,2002:bool",
  default: true,
  identify: (v) => v === value,
  test,
  resolve: () => value,
  stringify: () => (value ? "true" : "false"),
});
/** Known to the writer so it quotes strings that match; its values are never written through it. */
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

/** The writer must not know merge keys as such: that tag would print the string "<<" bare. */
function pyTags(): (base: Tags) => Tags {
  return (base) => {
    const kept = base
      .filter((t) => typeof t !== "string" && KEPT_BASE.has(t.tag))
      .map((t): ScalarTag | CollectionTag => {
        const tag = t as ScalarTag | CollectionTag;
        if (tag.tag !== "tag:yaml.org,2002:str" || tag.collection) return tag;
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
      quoteOnly("tag:yaml.org,2002:timestamp", TIMESTAMP),
      quoteOnly("tag:yaml.org,2002:value", VALUE_KEY),
      quoteOnly("tag:yaml.org,2002:merge", MERGE_KEY),
    ];
    return tags;
  };
}

/** Write YAML in Dify's export style (sorted keys, unindented sequences, unicode kept) that PyYAML reads back. */
export function writeYaml(value: unknown): string {
  return stringify(value, {
    version: "1.1",
    schema: "yaml-1.1",
    customTags: pyTags(),
    merge: false,
    sortMapEntries: true,
    lineWidth: 0,
    // Multi-line double-quoted output mangles lines that start with a space (yaml 2.9.1); keep one line.
    doubleQuotedMinMultiLineLength: Number.MAX_SAFE_INTEGER,
    indentSeq: false,
    aliasDuplicateObjects: false,
  });
}
