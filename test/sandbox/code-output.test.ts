import { describe, expect, it } from "vitest";
import {
  CodeOutputError,
  type CodeOutputSchema,
  checkCodeOutputs,
  decimalPlaces,
} from "../../src/nodes/code-output.js";

const fails = (result: Record<string, unknown>, schema: CodeOutputSchema | null, code: string, message?: RegExp) => {
  let err: unknown;
  try {
    checkCodeOutputs(result, schema);
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(CodeOutputError);
  expect((err as CodeOutputError).code).toBe(code);
  if (message) expect((err as CodeOutputError).message).toMatch(message);
  return err as CodeOutputError;
};

describe("declared outputs", () => {
  const schema: CodeOutputSchema = {
    s: { type: "string" },
    n: { type: "number" },
    b: { type: "boolean" },
    o: { type: "object", children: null },
    as: { type: "array[string]" },
    an: { type: "array[number]" },
    ab: { type: "array[boolean]" },
    ao: { type: "array[object]" },
  };
  const good = { s: "x", n: 1.5, b: true, o: { k: 1 }, as: ["a"], an: [1, 2], ab: [false], ao: [{ a: 1 }] };

  it("passes a matching result through", () => {
    expect(checkCodeOutputs(good, schema)).toEqual(good);
  });

  it("requires every declared output", () => {
    const { n: _n, ...rest } = good;
    const err = fails(rest, schema, "code.output_missing", /output n is missing/);
    expect(err.path).toBe("n");
  });

  it("refuses keys that are not declared", () => {
    fails({ ...good, extra: 1, more: 2 }, schema, "code.output_extra", /"extra", "more"/);
  });

  it("allows null for every declared output", () => {
    const nulls = Object.fromEntries(Object.keys(schema).map((k) => [k, null]));
    expect(checkCodeOutputs(nulls, schema)).toEqual(nulls);
  });

  it("turns a boolean into 0/1 where a number is declared", () => {
    expect(checkCodeOutputs({ n: true }, { n: { type: "number" } })).toEqual({ n: 1 });
    expect(checkCodeOutputs({ n: false }, { n: { type: "number" } })).toEqual({ n: 0 });
  });

  it("strips NUL bytes from strings, also inside string arrays", () => {
    expect(
      checkCodeOutputs({ s: "a\0b", as: ["\0c"] }, { s: { type: "string" }, as: { type: "array[string]" } }),
    ).toEqual({
      s: "ab",
      as: ["c"],
    });
  });

  it("checks each declared type", () => {
    fails({ s: 1 }, { s: { type: "string" } }, "code.output_type", /must be a string, got integer/);
    fails({ n: "1" }, { n: { type: "number" } }, "code.output_type", /must be a number/);
    fails({ b: 1 }, { b: { type: "boolean" } }, "code.output_type", /must be a boolean/);
    fails({ o: [1] }, { o: { type: "object" } }, "code.output_type", /must be an object, got array/);
    fails({ a: "x" }, { a: { type: "array[string]" } }, "code.output_type", /must be an array/);
    fails({ a: ["x", 1] }, { a: { type: "array[string]" } }, "code.output_type", /a\[1\] must be a string/);
    fails({ a: [1, "x"] }, { a: { type: "array[number]" } }, "code.output_type", /a\[1\] must be a number/);
    fails({ a: [true, 1] }, { a: { type: "array[boolean]" } }, "code.output_type", /a\[1\]/);
    fails({ a: [{}, 2] }, { a: { type: "array[object]" } }, "code.output_type", /a\[1\] must be an object/);
  });

  it("refuses types a code node cannot produce", () => {
    fails({ f: {} }, { f: { type: "file" } }, "code.output_unsupported_type", /file/);
  });

  it("limits string length to 400 000 characters", () => {
    expect(checkCodeOutputs({ s: "x".repeat(400_000) }, { s: { type: "string" } }).s).toHaveLength(400_000);
    fails({ s: "x".repeat(400_001) }, { s: { type: "string" } }, "code.output_too_long", /400000/);
  });

  it("limits numbers to ±(2^63 - 1) and 20 decimal places", () => {
    expect(checkCodeOutputs({ n: 9_007_199_254_740_991 }, { n: { type: "number" } })).toEqual({
      n: 9_007_199_254_740_991,
    });
    fails({ n: 2 ** 63 }, { n: { type: "number" } }, "code.output_out_of_range");
    fails({ n: -(2 ** 63) }, { n: { type: "number" } }, "code.output_out_of_range");
    fails({ n: 1e300 }, { n: { type: "number" } }, "code.output_out_of_range");
    expect(checkCodeOutputs({ n: 0.30000000000000004 }, { n: { type: "number" } }).n).toBe(0.30000000000000004);
    fails({ n: 1.5e-21 }, { n: { type: "number" } }, "code.output_precision", /20 decimal places/);
    fails({ an: [1, 1.2345e-19] }, { an: { type: "array[number]" } }, "code.output_precision", /an\[1\]/);
  });

  it("limits array lengths: strings and objects 30, numbers 1000", () => {
    const strs = (n: number) => Array.from({ length: n }, () => "a");
    expect(checkCodeOutputs({ a: strs(30) }, { a: { type: "array[string]" } }).a).toHaveLength(30);
    fails({ a: strs(31) }, { a: { type: "array[string]" } }, "code.output_array_too_long", /31 elements/);
    fails(
      { a: Array.from({ length: 31 }, () => ({})) },
      { a: { type: "array[object]" } },
      "code.output_array_too_long",
    );
    expect(checkCodeOutputs({ a: Array(1000).fill(1) }, { a: { type: "array[number]" } }).a).toHaveLength(1000);
    fails({ a: Array(1001).fill(1) }, { a: { type: "array[number]" } }, "code.output_array_too_long");
  });

  it("checks declared children of objects and object arrays strictly", () => {
    const nested: CodeOutputSchema = {
      o: { type: "object", children: { name: { type: "string" }, age: { type: "number" } } },
      ao: { type: "array[object]", children: { id: { type: "number" } } },
    };
    expect(checkCodeOutputs({ o: { name: "a", age: true }, ao: [{ id: 1 }, null] }, nested)).toEqual({
      o: { name: "a", age: 1 },
      ao: [{ id: 1 }, null],
    });
    fails({ o: { name: "a" }, ao: [] }, nested, "code.output_missing", /o\.age/);
    fails({ o: { name: "a", age: 1, x: 1 }, ao: [] }, nested, "code.output_extra", /in o/);
    fails({ o: { name: "a", age: 1 }, ao: [{ id: "1" }] }, nested, "code.output_type", /ao\[0\]\.id/);
  });

  it("limits nesting depth to 5", () => {
    const deep = (levels: number): Record<string, unknown> => (levels === 0 ? { v: 1 } : { d: deep(levels - 1) });
    expect(() => checkCodeOutputs({ o: deep(3) }, { o: { type: "object" } })).not.toThrow();
    fails({ o: deep(6) }, { o: { type: "object" } }, "code.output_too_deep", /5 levels/);
  });
});

describe("undeclared outputs (outputs: null)", () => {
  it("accepts any keys with plain values", () => {
    const r = { a: "x", b: 1, c: true, d: null, e: { f: [1, 2] }, g: [] };
    expect(checkCodeOutputs(r, null)).toEqual(r);
  });

  it("requires arrays to hold one kind of element", () => {
    expect(checkCodeOutputs({ a: [1, null, 2.5] }, null)).toEqual({ a: [1, null, 2.5] });
    expect(checkCodeOutputs({ a: [{ x: 1 }, null] }, null)).toEqual({ a: [{ x: 1 }, null] });
    fails({ a: [1, "x"] }, null, "code.output_not_homogeneous", /same type/);
    fails({ a: ["x", null] }, null, "code.output_not_homogeneous");
    fails({ a: [[1], [2]] }, null, "code.output_not_homogeneous");
  });

  it("still applies the string, number and depth limits", () => {
    fails({ a: "x".repeat(400_001) }, null, "code.output_too_long");
    fails({ a: { b: 2 ** 64 } }, null, "code.output_out_of_range", /a\.b/);
    const deep = (levels: number): Record<string, unknown> => (levels === 0 ? { v: 1 } : { d: deep(levels - 1) });
    fails(deep(6), null, "code.output_too_deep");
  });

  it("strips NUL bytes", () => {
    expect(checkCodeOutputs({ a: "x\0y", b: ["\0"] }, null)).toEqual({ a: "xy", b: [""] });
  });
});

describe("decimalPlaces", () => {
  it("counts digits after the point, including exponent notation", () => {
    expect(decimalPlaces(1)).toBe(0);
    expect(decimalPlaces(1.25)).toBe(2);
    expect(decimalPlaces(-0.125)).toBe(3);
    expect(decimalPlaces(1.5e-7)).toBe(8);
    expect(decimalPlaces(1e21)).toBe(0);
  });
});
