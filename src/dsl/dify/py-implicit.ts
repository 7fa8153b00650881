import { BOOL_FALSE, BOOL_TRUE, FLOAT_FORMS, INT_FORMS, resolveFloat, resolveInt } from "./py-scalars.js";

/**
 * PyYAML's implicit value forms — null, bool, int, float — decided in one call per plain scalar. js-yaml offers
 * every plain scalar (mapping keys included) to each implicit type in turn until one takes it: with one type per
 * form that was four calls for every key and word, two regexes among them for each 2–5 character word (`data`,
 * `type`, `title`), and the numbers were classified once to resolve and again to construct. Here the first
 * character rules out what cannot be a value form (almost everything), and the value built while deciding is
 * handed to `construct`. The forms themselves are still py-scalars.ts's; test/dsl/py-implicit.test.ts holds this
 * to them one by one, and the PyYAML oracle test to PyYAML.
 */

const NULL_WORDS = new Set(["", "~", "null", "Null", "NULL"]);
const TRUE_WORDS = new Set(["yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"]);
const FALSE_WORDS = new Set(["no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"]);
/** The commonest numbers (positions, sizes, counts), whose value is plain `Number(text)`. */
const PLAIN_INT = /^-?(?:0|[1-9][0-9]*)$/;
const PLAIN_FLOAT = /^-?[0-9]+\.[0-9]+$/;

/** First characters of the word forms: `~`, n N y Y t T f F o O. */
const WORD_START = new Set([126, 110, 78, 121, 89, 116, 84, 102, 70, 111, 79]);

const isNumberStart = (c: number): boolean => (c >= 48 && c <= 57) || c === 43 || c === 45 || c === 46;

/** The last text resolved and the value it reads as: construct is called right after resolve, with that text. */
let resolvedText: string | null = null;
let resolvedValue: unknown;

function take(text: string, value: unknown): true {
  resolvedText = text;
  resolvedValue = value;
  return true;
}

function resolveWord(s: string): boolean {
  if (s.length > 5) return false;
  if (NULL_WORDS.has(s)) return take(s, null);
  if (TRUE_WORDS.has(s)) return take(s, true);
  if (FALSE_WORDS.has(s)) return take(s, false);
  return false;
}

function resolveNumber(s: string): boolean {
  // `-0` is the integer 0 to Python (only floats carry a sign on zero), as resolveInt has it.
  if (PLAIN_INT.test(s)) return take(s, Number(s) || 0);
  if (PLAIN_FLOAT.test(s)) return take(s, Number(s));
  if (INT_FORMS.some((re) => re.test(s))) return take(s, resolveInt(s));
  if (FLOAT_FORMS.some((re) => re.test(s))) return take(s, resolveFloat(s));
  return false;
}

/** Whether a plain scalar reads as null, a bool, an int or a float (not a string); remembers the value. */
export function resolvePyImplicit(s: string | null): boolean {
  if (s === null || s.length === 0) return take("", null);
  const c = s.charCodeAt(0);
  if (isNumberStart(c)) return resolveNumber(s);
  return WORD_START.has(c) && resolveWord(s);
}

/**
 * The value of a text resolvePyImplicit accepted (worked out again only if called with another text). Both are
 * forgotten once taken: the text may be a slice that keeps the whole document alive.
 */
export function constructPyImplicit(s: string | null): unknown {
  const text = s ?? "";
  if (text !== resolvedText && !resolvePyImplicit(text)) {
    throw new Error(`not an implicit PyYAML value: ${JSON.stringify(text)}`);
  }
  const value = resolvedValue;
  resolvedText = null;
  resolvedValue = undefined;
  return value;
}

/** The separate forms, for explicit tags (`!!bool yes`, `!!int '7'`), which name one form. */
export const isNullForm = (s: string | null): boolean => s === null || NULL_WORDS.has(s);
export const isBoolForm = (s: string | null): boolean => s !== null && (BOOL_TRUE.test(s) || BOOL_FALSE.test(s));
export const isIntForm = (s: string | null): boolean => s !== null && INT_FORMS.some((re) => re.test(s));
export const isFloatForm = (s: string | null): boolean => s !== null && FLOAT_FORMS.some((re) => re.test(s));
