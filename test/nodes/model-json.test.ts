/**
 * JSON in model text that nodes read (LLM structured output, parameter extractor, classifier, agent,
 * tool calls) is hostile input (issue 28 C): prototype keys and runaway nesting never reach node outputs.
 */
import { describe, expect, it } from "vitest";
import { parseJsonObject } from "../../src/nodes/model-call.js";

describe("parseJsonObject reads model JSON as hostile input", () => {
  it("an object with a __proto__ or constructor.prototype key is no object (it was one with an own __proto__)", () => {
    for (const text of [
      '{"a": 1, "__proto__": {"polluted": true}}',
      '```json\n{"x": {"constructor": {"prototype": {"p": 1}}}}\n```',
      "{'__proto__': {'p': 1}}",
    ]) {
      expect(parseJsonObject(text), text).toBeUndefined();
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("nesting over 64 levels is no object", () => {
    expect(parseJsonObject(`{"a": ${"[".repeat(100)}1${"]".repeat(100)}}`)).toBeUndefined();
    expect(parseJsonObject(`{"a": ${"[".repeat(60)}1${"]".repeat(60)}}`)).toEqual({
      a: JSON.parse(`${"[".repeat(60)}1${"]".repeat(60)}`),
    });
  });

  it("ordinary answers read as before: prose, fences, think blocks and slips around an object", () => {
    expect(parseJsonObject('Sure! {"city": "Paris", "constructor": "x"} hope that helps')).toEqual({
      city: "Paris",
      constructor: "x",
    });
    expect(parseJsonObject('<think>{"no": 1}</think>```json\n{"a": [1, 2,],}\n```')).toEqual({ a: [1, 2] });
    expect(parseJsonObject("no json here")).toBeUndefined();
  });
});
