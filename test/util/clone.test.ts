import { describe, expect, it } from "vitest";
import { cloneRecord } from "../../src/util/clone.js";

describe("cloneRecord", () => {
  it("copies plain records deeply, so changing the copy leaves the original alone", () => {
    const original = { a: 1, b: [1, { c: "x" }], d: { e: null, f: undefined, g: true }, h: -0, i: Number.NaN };
    const copy = cloneRecord(original);
    expect(copy).toStrictEqual(structuredClone(original));
    expect(Object.is(copy.h, -0)).toBe(true);
    copy.b.push(2);
    (copy.b[1] as { c: string }).c = "y";
    copy.d.e = 5 as never;
    expect(original).toStrictEqual({
      a: 1,
      b: [1, { c: "x" }],
      d: { e: null, f: undefined, g: true },
      h: -0,
      i: Number.NaN,
    });
    expect("f" in copy.d).toBe(true);
  });

  it("gives what structuredClone gives for values outside the plain shape", () => {
    const date = new Date(5);
    const bytes = new Uint8Array([1, 2, 3]);
    const map = new Map([["k", { v: 1 }]]);
    const nullProto = Object.assign(Object.create(null), { a: 1 });
    const sparse: number[] = [1];
    sparse[2] = 3;
    const value = { date, bytes, map, nullProto, sparse, big: 10n };
    const copy = cloneRecord(value);
    expect(copy).toStrictEqual(structuredClone(value));
    expect(copy.date).toBeInstanceOf(Date);
    expect(copy.date).not.toBe(date);
    expect(copy.bytes).toBeInstanceOf(Uint8Array);
    expect(copy.bytes).not.toBe(bytes);
    expect(copy.map.get("k")).not.toBe(map.get("k"));
    expect(1 in copy.sparse).toBe(false);
  });

  it("keeps a __proto__ key a key (as JSON.parse makes it) and never changes the copy's prototype", () => {
    const hostile = JSON.parse('{"__proto__": {"polluted": true}, "a": [{"__proto__": {"x": 1}}]}');
    const copy = cloneRecord(hostile);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect((copy as { polluted?: boolean }).polluted).toBeUndefined();
    expect(Object.hasOwn(copy, "__proto__")).toBe(true);
    expect(copy).toStrictEqual(structuredClone(hostile));
  });

  it("copies cycles as structuredClone does, and refuses functions with its error", () => {
    const cyclic: Record<string, unknown> = { name: "loop" };
    cyclic.self = cyclic;
    const copy = cloneRecord(cyclic);
    expect(copy.self).toBe(copy);
    expect(copy).not.toBe(cyclic);
    expect(() => cloneRecord({ f: () => 1 })).toThrow(/could not be cloned/);
    expect(() => cloneRecord({ s: Symbol("x") })).toThrow(/could not be cloned/);
  });

  it("copies deep but acyclic records whole", () => {
    let deep: Record<string, unknown> = { leaf: true };
    for (let i = 0; i < 200; i++) deep = { next: deep };
    expect(cloneRecord(deep)).toStrictEqual(deep);
  });
});
