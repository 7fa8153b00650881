/**
 * The main thread's first attempt at a JavaScript guest (src/sandbox/inline-javascript.ts): a guest that ends
 * within the slice is decided here, with the worker's own limits and errors; one that does not (a long loop, one
 * long builtin) is handed on undecided, the thread is never held past the hard stop, and what follows still
 * works. End to end, a guest longer than the slice still gets its whole time limit in a worker.
 */
import { describe, expect, it } from "vitest";
import { createSandbox, resolveLimits } from "../../src/sandbox/index.js";
import { runInline } from "../../src/sandbox/inline-javascript.js";

const limits = resolveLimits(undefined, { timeoutMs: 5_000, memoryBytes: 32 * 1024 * 1024 });
const input = (v: Record<string, unknown>) => JSON.stringify(v);

describe("JavaScript guests on the calling thread", () => {
  it("decides a short guest here: its result, or the error it threw", async () => {
    const ok = await runInline("function main({ a }) { return { b: a + 1 } }", input({ a: 1 }), limits);
    expect(ok).toEqual({ ok: true, text: '{"b":2}' });
    const thrown = await runInline("function main() { throw new TypeError('no') }", input({}), limits);
    expect(thrown).toMatchObject({ ok: false, error: { name: "TypeError", message: "no" } });
    const syntax = await runInline("function main( {", input({}), limits);
    expect(syntax).toMatchObject({ ok: false, error: { name: "SyntaxError" } });
  });

  it("hands a guest that outlasts the slice on, and sends that code to a worker from then on", async () => {
    const code = "function main() { for (;;) {} }";
    expect(await runInline(code, input({}), limits)).toBeUndefined();
    expect(await runInline(code, input({}), limits)).toBeUndefined();
    // Other code is still tried here.
    expect(await runInline("function main() { return { x: 1 } }", input({}), limits)).toEqual({
      ok: true,
      text: '{"x":1}',
    });
  });

  it("stops a guest inside one long builtin at the hard stop, and the next guest runs on a new module", async () => {
    const stuck = "function main() { return { s: new Array(2 ** 32 - 1).join().length } }";
    expect(await runInline(stuck, input({}), limits)).toBeUndefined();
    expect(await runInline("function main() { return { y: [1, 2].map((v) => v * 2) } }", input({}), limits)).toEqual({
      ok: true,
      text: '{"y":[2,4]}',
    });
  });

  it("a guest interrupted by a deadline of its own within the slice is left to the worker, which times it out", async () => {
    const short = resolveLimits(undefined, { timeoutMs: 10 });
    const code = "function main() { let i = 0; for (;;) i++ }";
    expect(await runInline(code, input({}), short)).toBeUndefined();
    await expect(
      createSandbox({ inlineJavaScript: true }).run({
        language: "javascript",
        code,
        inputs: {},
        limits: { timeoutMs: 10 },
      }),
    ).rejects.toMatchObject({ code: "sandbox.timeout" });
  });

  it("end to end: a guest longer than the slice gets its whole time in a worker", async () => {
    const sandbox = createSandbox({ limits: { timeoutMs: 10_000 }, inlineJavaScript: true });
    // Longer than the slice (25 interrupt polls: 250,000 jumps) on any machine, far shorter than its limit.
    const code = "function main() { let s = 0; for (let i = 0; i < 3e6; i++) s = (s + i) % 1000003; return { s } }";
    await expect(sandbox.run({ language: "javascript", code, inputs: {} })).resolves.toEqual({ s: expect.any(Number) });
  });

  it("end to end: hostile guests end with the worker's typed errors", async () => {
    const sandbox = createSandbox({
      limits: { timeoutMs: 1_000, memoryBytes: 16 * 1024 * 1024 },
      inlineJavaScript: true,
    });
    const run = (code: string) => sandbox.run({ language: "javascript", code, inputs: {} });
    await expect(run("function main() { return { s: new Array(2 ** 32 - 1).join().length } }")).rejects.toMatchObject({
      code: "sandbox.timeout",
    });
    await expect(
      run("function main() { const a = []; for (;;) a.push(new Uint8Array(1 << 20)) }"),
    ).rejects.toMatchObject({ code: "sandbox.memory" });
    await expect(run("function main() { return { p: typeof process, r: typeof require } }")).resolves.toEqual({
      p: "undefined",
      r: "undefined",
    });
    await expect(run("function main() { return process.env }")).rejects.toMatchObject({ code: "sandbox.forbidden" });
    await expect(run("function main( {")).rejects.toMatchObject({ code: "sandbox.syntax_error" });
  });
});
