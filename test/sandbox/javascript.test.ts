import { describe, expect, it } from "vitest";
import { expectHostHealthy, expectSandboxError, inlineSandbox, sandbox as workerSandbox } from "./helpers.js";

const MEMORY_BOMB_DEADLINE_MS = 60_000;

const js = (code: string, inputs: Record<string, unknown> = {}, limits?: Record<string, number>) => ({
  language: "javascript" as const,
  code,
  inputs,
  limits,
});

// Every case twice: as servers run guests (always in a worker) and as `weft run` does (first on its own thread).
describe.each([
  ["in a worker", workerSandbox],
  ["first on the calling thread", inlineSandbox],
])("%s", (_mode, sandbox) => {
  describe("javascript sandbox: Dify contract", () => {
    it("calls main with one destructured object and returns its object", async () => {
      const code = `
  function main({arg1, arg2}) {
      return {
          result: arg1 + arg2,
          list: [arg1, arg2],
      }
  }`;
      await expect(sandbox.run(js(code, { arg1: "a", arg2: "b" }))).resolves.toEqual({
        result: "ab",
        list: ["a", "b"],
      });
    });

    it("parses JSON and uses regular expressions like corpus code does", async () => {
      const code = `
  function main({arg1}) {
     arg1 = arg1.replace("undefined(", "")
     arg1 = arg1.replace(")", "")
     const words = JSON.parse(arg1).text.match(/\\w+/g)
     return { result: JSON.parse(arg1), words }
  }`;
      const r = await sandbox.run(js(code, { arg1: 'undefined({"text":"hello big world"})' }));
      expect(r).toEqual({ result: { text: "hello big world" }, words: ["hello", "big", "world"] });
    });

    it("accepts async main and console logging", async () => {
      const code = "async function main({ n }) { console.log('n', n); await null; return { twice: n * 2 } }";
      await expect(sandbox.run(js(code, { n: 21 }))).resolves.toEqual({ twice: 42 });
    });

    it("passes nested inputs, nulls and unicode through JSON unchanged", async () => {
      const inputs = { o: { a: [1, { b: null }] }, s: "héllo ✓ 中文", n: null };
      await expect(sandbox.run(js("function main(i) { return i }", inputs))).resolves.toEqual(inputs);
    });

    it("reports user errors with type, message and line", async () => {
      const err = await expectSandboxError(
        js("function main() {\n  const x = null;\n  return x.y;\n}"),
        "sandbox.runtime_error",
        /TypeError/,
      );
      expect(err.line).toBe(3);
    });

    it("reports syntax errors", async () => {
      await expectSandboxError(js("function main( {"), "sandbox.syntax_error", /SyntaxError/);
    });

    it("requires main", async () => {
      await expectSandboxError(js("function helper() { return {} }"), "sandbox.no_main", /main/);
    });

    it("requires an object result", async () => {
      await expectSandboxError(js("function main() { return [1, 2] }"), "sandbox.bad_result", /array/);
      await expectSandboxError(js("function main() { return 'x' }"), "sandbox.bad_result", /string/);
      await expectSandboxError(js("function main() { return null }"), "sandbox.bad_result", /null/);
    });

    it("refuses a promise that never settles", async () => {
      await expectSandboxError(
        js("function main() { return new Promise(() => {}) }"),
        "sandbox.runtime_error",
        /never settles/,
      );
    });
  });

  describe("javascript sandbox: escape attempts", () => {
    const attempts: Array<[string, string, string, RegExp?]> = [
      [
        "require('fs')",
        "function main() { const fs = require('fs'); return { x: fs.readFileSync('/etc/passwd', 'utf8') } }",
        "sandbox.forbidden",
        /require/,
      ],
      [
        "require('child_process')",
        "function main() { require('child_process').execSync('id'); return {} }",
        "sandbox.forbidden",
        /require/,
      ],
      [
        "dynamic import()",
        "async function main() { const fs = await import('fs'); return { x: String(fs) } }",
        "sandbox.forbidden",
        /module/,
      ],
      ["static import", "import fs from 'fs';\nfunction main() { return {} }", "sandbox.forbidden", /module/],
      ["process.env", "function main() { return { env: process.env } }", "sandbox.forbidden", /process/],
      [
        "globalThis.process",
        "function main() { return { p: typeof globalThis.process, m: typeof globalThis.module, r: typeof globalThis.require } }",
        "",
        undefined,
      ],
      [
        "fetch",
        "async function main() { const r = await fetch('http://127.0.0.1/'); return { s: r.status } }",
        "sandbox.forbidden",
        /fetch/,
      ],
      [
        "XMLHttpRequest",
        "function main() { const x = new XMLHttpRequest(); x.open('GET', 'http://127.0.0.1/'); return {} }",
        "sandbox.forbidden",
        /XMLHttpRequest/,
      ],
      ["setTimeout", "function main() { setTimeout(() => {}, 10); return {} }", "sandbox.forbidden", /setTimeout/],
      [
        "constructor.constructor process",
        "function main() { return { p: this.constructor.constructor('return process')() } }",
        "sandbox.forbidden",
        /process/,
      ],
      [
        "Function('return this') global",
        "function main() { const g = Function('return this')(); return { keys: Object.getOwnPropertyNames(g).filter(k => /^(process|require|fetch|Buffer|module|XMLHttpRequest)$/.test(k)) } }",
        "",
        undefined,
      ],
      ["Buffer", "function main() { return { b: Buffer.from('x').toString('hex') } }", "sandbox.forbidden", /Buffer/],
      ["infinite loop", "function main() { while (true) {} }", "sandbox.timeout", /ms/],
      ["infinite loop in a promise job", "async function main() { await null; for (;;) {} }", "sandbox.timeout"],
      [
        "deep recursion",
        "function main() { function f(n) { return f(n + 1) + 1 } return { x: f(0) } }",
        "sandbox.memory",
        /stack/,
      ],
      ["huge output", "function main() { return { x: 'x'.repeat(2 * 1024 * 1024) } }", "sandbox.output_too_large"],
      [
        "__proto__ key in the result",
        "function main() { return { ['__proto__']: { polluted: true } } }",
        "sandbox.bad_result",
        /__proto__/,
      ],
    ];

    for (const [name, code, expected, message] of attempts) {
      it(`blocks ${name}`, async () => {
        const limits: Record<string, number> | undefined =
          name === "huge output"
            ? { maxOutputBytes: 1024 * 1024 }
            : name.includes("loop")
              ? { timeoutMs: 500 }
              : undefined;
        if (expected === "") {
          // Nothing to throw: the result must show that the host objects are simply absent.
          const r = (await sandbox.run(js(code, {}, limits))) as Record<string, unknown>;
          expect(JSON.stringify(r)).not.toMatch(/"(object|function)"/);
          if ("keys" in r) expect(r.keys).toEqual([]);
        } else {
          await expectSandboxError(js(code, {}, limits), expected, message);
        }
        await expectHostHealthy("javascript");
      });
    }

    // The memory limit is what these two prove, so the clock must not end them first: QuickJS allocates slowly,
    // and on a loaded machine 16 MB of small objects took longer than the 3 s deadline the other tests use.
    it("blocks a memory bomb with a memory error", async () => {
      const code = "function main() { const a = []; for (;;) a.push(new Uint8Array(1 << 20)) }";
      await expectSandboxError(
        js(code, {}, { memoryBytes: 32 * 1024 * 1024, timeoutMs: MEMORY_BOMB_DEADLINE_MS }),
        "sandbox.memory",
        /memory/,
      );
      await expectHostHealthy("javascript");
    }, 120_000);

    it("blocks an object-allocation bomb with a memory error", async () => {
      const code = "function main() { const a = []; for (;;) a.push({ a: 1, b: [1, 2, 3] }) }";
      await expectSandboxError(
        js(code, {}, { memoryBytes: 16 * 1024 * 1024, timeoutMs: MEMORY_BOMB_DEADLINE_MS }),
        "sandbox.memory",
        /memory/,
      );
    }, 120_000);

    it("stops a string-building bomb (memory or deadline, whichever comes first)", async () => {
      // QuickJS's allocator is slow near its limit, so the deadline may fire first; both are safe ends.
      const code = "function main() { const a = []; for (;;) a.push('x'.repeat(1 << 20)) }";
      let err: unknown;
      await sandbox.run(js(code, {}, { memoryBytes: 32 * 1024 * 1024, timeoutMs: 1000 })).catch((e) => {
        err = e;
      });
      expect(["sandbox.memory", "sandbox.timeout"]).toContain((err as { code?: string })?.code);
      await expectHostHealthy("javascript");
    });

    it("stops a guest stuck inside one long builtin at the deadline", async () => {
      const code = "function main() { const a = []; for (;;) a.push(new Array(1e5).fill(1)) }";
      const t0 = Date.now();
      await expectSandboxError(js(code, {}, { timeoutMs: 300, memoryBytes: 1024 * 1024 * 1024 }), "sandbox.timeout");
      expect(Date.now() - t0).toBeLessThan(5000);
      await expectHostHealthy("javascript");
    });

    it("keeps prototype pollution inside the guest", async () => {
      const code = `function main() {
        Object.prototype.polluted = 'yes';
        Array.prototype.push = function () { return 0 };
        JSON.parse = function () { return { hacked: true } };
        return { clean: true };
      }`;
      const r = (await sandbox.run(js(code))) as Record<string, unknown>;
      expect(r).toEqual({ clean: true });
      expect(Object.keys(r)).toEqual(["clean"]);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      // The next run gets a fresh context: the pollution does not carry over either.
      const r2 = await sandbox.run(js("function main() { return { p: ({}).polluted ?? null, j: JSON.parse('[1]') } }"));
      expect(r2).toEqual({ p: null, j: [1] });
    });

    it("does not let one run see another run's globals", async () => {
      await sandbox.run(js("globalThis.secret = 'a'; function main() { return {} }"));
      await expect(sandbox.run(js("function main() { return { s: typeof secret } }"))).resolves.toEqual({
        s: "undefined",
      });
    });

    it("honours an abort signal", async () => {
      const ac = new AbortController();
      const p = sandbox.run({ ...js("function main() { for (;;) {} }"), signal: ac.signal });
      setTimeout(() => ac.abort(), 100);
      await expect(p).rejects.toMatchObject({ code: "sandbox.aborted" });
      await expectHostHealthy("javascript");
    });
  });
});
