import { describe, expect, it } from "vitest";
import { readYaml } from "../../src/dsl/dify/index.js";
import { constructPyImplicit, resolvePyImplicit } from "../../src/dsl/dify/py-implicit.js";
import {
  BOOL_FALSE,
  BOOL_TRUE,
  FLOAT_FORMS,
  INT_FORMS,
  NULL,
  resolveFloat,
  resolveInt,
} from "../../src/dsl/dify/py-scalars.js";

/**
 * The reader decides PyYAML's implicit forms in one call, ruling most scalars out by their first character and
 * taking the commonest numbers by `Number`: it must read every plain scalar exactly as the forms of py-scalars.ts
 * do one after another (null, bool, int, float, else a string).
 */
const STRING = Symbol("string");
function byForms(s: string): unknown {
  if (NULL.test(s)) return null;
  if (BOOL_TRUE.test(s)) return true;
  if (BOOL_FALSE.test(s)) return false;
  if (INT_FORMS.some((re) => re.test(s))) return resolveInt(s);
  if (FLOAT_FORMS.some((re) => re.test(s))) return resolveFloat(s);
  return STRING;
}
function byReader(s: string): unknown {
  return resolvePyImplicit(s) ? constructPyImplicit(s) : STRING;
}

const WORDS = [
  ...["", "~", "null", "Null", "NULL", "nULL", "nul", "nulls", "None", "none"],
  ...["yes", "Yes", "YES", "yEs", "y", "Y", "n", "N", "no", "No", "NO", "nO", "on", "On", "ON", "oN", "off", "Off"],
  ...["OFF", "oFF", "true", "True", "TRUE", "tRUE", "false", "False", "FALSE", "fALSE", "o", "t", "f", "ye", "tru"],
  ...["0", "-0", "+0", "00", "007", "08", "09", "0o17", "0b101", "0b", "0x", "0x1F", "-0x1f", "0xg", "1_000", "_1"],
  ...["1:20", "1:60", "190:20:30.15", "-1:5", "0:5", "1.", "1.5", "-1.5", "+1.5", ".5", "-.5", "0.0", "-0.0", "00.5"],
  ...["1e5", "1.0e+5", "1.5e-3", "1.5E+3", "1.5e3", ".inf", "-.Inf", "+.INF", ".nan", ".NaN", "-.nan", ".NAN", "."],
  ...["-", "+", "--1", "1-", "1.2.3", "12345678901234567890", "9007199254740993", "1.7976931348623159e+308", "<<"],
  ...["data", "type", "title", "x", "y", "width", "position", "2024-01-02", "=", " 1", "1 ", "0.1_2", "1__0", "１"],
];

/** Every string of up to `n` characters over a small alphabet that reaches each form and its edges. */
function strings(alphabet: string, n: number): string[] {
  let level = [""];
  const all = [""];
  for (let i = 0; i < n; i++) {
    level = level.flatMap((s) => [...alphabet].map((c) => s + c));
    all.push(...level);
  }
  return all;
}

describe("PyYAML's implicit forms in one resolver", () => {
  it("reads the words and numbers where forms meet as the forms one by one do", () => {
    for (const s of WORDS) expect([s, byReader(s)]).toEqual([s, byForms(s)]);
  });

  it("agrees on every short string over the forms' characters", () => {
    const differ = strings("01-+.:_eExbN9", 4)
      .concat(strings("onOfFyYtTrueasl~", 3))
      .filter((s) => !Object.is(byReader(s), byForms(s)));
    expect(differ).toEqual([]);
  });

  it("reads values in a document as the forms do", () => {
    // Words that stay one plain scalar in a block mapping (no indicator first, no surrounding space).
    const plain = WORDS.filter((w) => w !== "" && w.trim() === w && !/^[-?:,[\]{}#&*!|>'"%@`=<]/.test(w));
    const r = readYaml(plain.map((w, i) => `k${i}: ${w}\n`).join(""));
    expect(r.ok).toBe(true);
    const value = (r.ok ? r.value : {}) as Record<string, unknown>;
    plain.forEach((w, i) => {
      const expected = byForms(w);
      expect([w, value[`k${i}`]]).toEqual([w, expected === STRING ? w : expected]);
    });
  });

  it("construct works out a text it was not just given", () => {
    expect(resolvePyImplicit("17")).toBe(true);
    expect(constructPyImplicit("0x1F")).toBe(31);
    expect(() => constructPyImplicit("title")).toThrow();
  });
});
