/** Issue 34, the Tests tab: a check survives the editor's text fields unchanged; text that is not what the check needs is refused by name. */
import { describe, expect, it } from "vitest";
import { CheckFormError, checkOf, draftOf, inputsOf } from "../src/tests/checkForm";
import type { OutputCheck } from "../src/tests/types";

const every: OutputCheck[] = [
  { output: "title", check: "exact", value: "Refunds" },
  { output: "n", check: "exact", value: { a: [1, null] } },
  { output: "title", check: "contains", value: "refund" },
  { output: "title", check: "regex", pattern: "^R.*s$", flags: "i" },
  { output: "obj", check: "json_schema", schema: { type: "object", required: ["a"] } },
  { output: "score", check: "number", value: 0.5, tolerance: 0.01 },
  { output: "file", check: "file_type", extension: "pdf", fileType: "document" },
];

describe("check editor fields", () => {
  it("round-trips every kind of check", () => {
    for (const c of every) expect(checkOf(draftOf(c))).toEqual(c);
  });

  it("refuses what it cannot read, naming the output and the field, and never guesses", () => {
    const refused = (c: Parameters<typeof checkOf>[0]) => {
      try {
        checkOf(c);
      } catch (e) {
        expect(e).toBeInstanceOf(CheckFormError);
        return (e as Error).message;
      }
      throw new Error("accepted");
    };
    const exact = draftOf({ output: "title", check: "exact", value: "x" });
    expect(refused({ ...exact, text: "Refunds" })).toMatch(
      /^title: the expected value is not JSON .*write strings in quotes$/,
    );
    expect(refused({ ...exact, check: "number", text: "ten" })).toBe(
      'title: the expected value must be a number, not "ten"',
    );
    expect(refused({ ...exact, check: "number", text: "10", tolerance: "" })).toBe(
      'title: the tolerance must be a number, not ""',
    );
    expect(refused({ ...exact, check: "json_schema", text: "[1]" })).toBe("title: the schema must be a JSON object");
    expect(refused({ ...exact, output: " " })).toBe("a check names no output: write the output's name");
  });

  it("reads the inputs box as a JSON object only", () => {
    expect(inputsOf('{"text": "a"}')).toEqual({ text: "a" });
    expect(() => inputsOf("{text: a}")).toThrow(/^inputs are not JSON/);
    expect(() => inputsOf("[1]")).toThrow("inputs must be a JSON object of start-variable values");
  });
});
