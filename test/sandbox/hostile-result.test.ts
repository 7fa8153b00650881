import { describe, expect, it } from "vitest";
import { SandboxError } from "../../src/sandbox/errors.js";
import { parseReply, parseResult } from "../../src/sandbox/json.js";
import { expectHostHealthy, expectSandboxError } from "./helpers.js";

const nest = (depth: number, inner = "1") => `${"[".repeat(depth)}${inner}${"]".repeat(depth)}`;

function refusal(f: () => unknown): SandboxError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(SandboxError);
    return e as SandboxError;
  }
  throw new Error("expected a SandboxError, got a result");
}

// Issue 28 B: a 3M-deep reply took ~11 s on the event loop (a whole-envelope parse, then a reviver that
// overflowed into "not valid JSON"); the bound below is 10x+ what one linear scan takes.
describe("sandbox results are read as hostile JSON", () => {
  const deep = `{"a":${nest(3_000_000)}}`;

  it("a 3M-deep result is sandbox.bad_result (too_deep), quickly, through the reader both sandboxes use", () => {
    const t = performance.now();
    const e = refusal(() => parseResult(deep, "javascript"));
    expect(e.code).toBe("sandbox.bad_result");
    expect(e.details.reason).toBe("too_deep");
    expect(e.message).toMatch(/deeper than 64 levels/);
    expect(performance.now() - t).toBeLessThan(2000);
  });

  it("a 3M-deep result in the Python reply envelope is refused without parsing the envelope whole", () => {
    for (const body of [`{"ok":true,"result":${deep}}`, `{"ok": true, "result": ${deep}}`]) {
      const t = performance.now();
      const e = refusal(() => parseReply(body, "python3", 64 * 1024 * 1024));
      expect([e.code, e.details.reason]).toEqual(["sandbox.bad_result", "too_deep"]);
      expect(performance.now() - t).toBeLessThan(2000);
    }
  });

  it("normal results are unchanged: 64 levels pass, brackets in strings do not count, error envelopes pass", () => {
    const ok = `{"a":${nest(63)},"s":"${"[".repeat(500)}","t":"\\"[{"}`;
    expect(parseResult(ok, "javascript")).toEqual(JSON.parse(ok));
    expect(parseReply(`{"ok":true,"result":${ok}}`, "python3").ok).toBe(true);
    expect(refusal(() => parseResult(`{"a":${nest(64)}}`, "javascript")).details.reason).toBe("too_deep");
    const err = parseReply(
      '{"ok": false, "kind": "runtime", "message": "boom", "type": "ValueError", "line": 2}',
      "python3",
    );
    expect(err).toEqual({
      ok: false,
      envelope: { ok: false, kind: "runtime", message: "boom", type: "ValueError", line: 2 },
    });
    expect(refusal(() => parseReply("{not json", "python3")).code).toBe("sandbox.crashed");
  });

  it("__proto__ keys (also escaped) and constructor.prototype pairs are refused at any depth", () => {
    for (const text of [
      '{"x":[{"__proto__":{"p":1}}]}',
      '{"\\u005f_proto__":{}}',
      '{"a":{"constructor":{"prototype":{"p":1}}}}',
    ]) {
      const e = refusal(() => parseResult(text, "javascript"));
      expect([e.code, e.details.reason]).toEqual(["sandbox.bad_result", "forbidden_key"]);
    }
    expect(parseResult('{"constructor":"x","prototype":1}', "javascript")).toEqual({ constructor: "x", prototype: 1 });
    expect(({} as Record<string, unknown>).p).toBeUndefined();
  });

  it("end to end: a JavaScript main returning 1000-deep nesting is sandbox.bad_result", async () => {
    const code = "function main() { let v = 1; for (let i = 0; i < 1000; i++) v = [v]; return { v } }";
    const e = await expectSandboxError(
      { language: "javascript", code, inputs: {} },
      "sandbox.bad_result",
      /deeper than 64/,
    );
    expect(e.details.reason).toBe("too_deep");
    await expectHostHealthy("javascript");
  });

  it("end to end: a Python main returning 200-deep nesting is sandbox.bad_result", async () => {
    const code = "def main():\n    v = 1\n    for _ in range(200):\n        v = [v]\n    return {'v': v}\n";
    const e = await expectSandboxError(
      { language: "python3", code, inputs: {} },
      "sandbox.bad_result",
      /deeper than 64/,
    );
    expect(e.details.reason).toBe("too_deep");
    await expectHostHealthy("python3");
  });
});
