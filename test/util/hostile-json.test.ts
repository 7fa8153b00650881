import { describe, expect, it } from "vitest";
import { checkHostileValue, depthExceededAt, readHostileJson } from "../../src/util/hostile-json.js";

describe("the hostile-JSON reader", () => {
  it("counts depth in one pass, skipping brackets inside strings and after escapes", () => {
    expect(depthExceededAt("[[1]]", 2)).toBe(-1);
    expect(depthExceededAt("[[[1]]]", 2)).toBe(2);
    expect(depthExceededAt('["[[[[", "\\"[[[["]', 1)).toBe(-1);
    // `\\\\` is an escaped backslash, so the quote after it closes the key and both brackets count.
    expect(depthExceededAt('{"a\\\\":[[1]]}', 2)).toBe(8);
  });

  it("names each refusal by reason", () => {
    expect(readHostileJson("[1]", { maxDepth: 4, maxChars: 2 })).toMatchObject({ ok: false, reason: "too_large" });
    expect(readHostileJson("[[1]]", { maxDepth: 1, maxChars: 100 })).toMatchObject({ ok: false, reason: "too_deep" });
    expect(readHostileJson('{"__proto__":1}')).toMatchObject({ ok: false, reason: "forbidden_key" });
    expect(readHostileJson("{nope")).toMatchObject({ ok: false, reason: "invalid" });
    expect(readHostileJson('{"constructor":{"name":"x"},"prototype":[]}')).toEqual({
      ok: true,
      value: { constructor: { name: "x" }, prototype: [] },
    });
  });

  it("checks parsed values: depth with its path, size, own __proto__ keys and changed prototypes", () => {
    let deep: unknown = 1;
    for (let i = 0; i < 70; i++) deep = [deep];
    expect(checkHostileValue({ a: deep })).toMatchObject({
      reason: "too_deep",
      message: expect.stringMatching(/at \$\.a\[0\]/),
    });
    expect(checkHostileValue({ s: "x".repeat(50) }, { maxDepth: 8, maxChars: 20 })).toMatchObject({
      reason: "too_large",
    });
    expect(checkHostileValue(JSON.parse('{"a":[{"__proto__":{}}]}'))).toMatchObject({ reason: "forbidden_key" });
    expect(checkHostileValue({ a: Object.create({ polluted: true }) })).toMatchObject({ reason: "forbidden_key" });
    expect(checkHostileValue({ a: Object.create(null), b: [1, "x", null] })).toBeUndefined();
  });
});
