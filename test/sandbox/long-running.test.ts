import { readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { describe, expect, it } from "vitest";
import { closeJavaScriptWorkers, createSandbox } from "../../src/sandbox/index.js";

/** Servers run the sandbox for days: many runs, good and bad, must not accumulate anything. */
describe("sandbox in a long-running process", () => {
  const sandbox = createSandbox({ limits: { timeoutMs: 2000, memoryBytes: 32 * 1024 * 1024 } });

  it("runs hundreds of JavaScript jobs, failing ones included, without growing", async () => {
    const codes = [
      "function main({ i }) { return { i, s: 'x'.repeat(1000) } }",
      "function main() { throw new Error('boom') }",
      "function main() { const a = []; for (;;) a.push(new Uint8Array(1 << 20)) }",
      "async function main({ i }) { await null; return { i } }",
      "function main() { return [1] }",
    ];
    const run = async (i: number) => {
      const code = codes[i % codes.length] as string;
      return sandbox.run({ language: "javascript", code, inputs: { i } }).then(
        () => "ok",
        (e: { code?: string }) => e.code ?? "untyped",
      );
    };
    // Warm up so the workers and their WASM memories exist before measuring.
    for (let i = 0; i < 20; i++) await run(i);
    const before = process.memoryUsage().rss;
    const outcomes = new Map<string, number>();
    for (let i = 0; i < 300; i++) {
      const o = await run(i);
      outcomes.set(o, (outcomes.get(o) ?? 0) + 1);
    }
    const grownMb = (process.memoryUsage().rss - before) / 1024 / 1024;
    expect(outcomes.get("ok")).toBe(120);
    expect(outcomes.get("sandbox.runtime_error")).toBe(60);
    expect(outcomes.get("sandbox.memory")).toBe(60);
    expect(outcomes.get("sandbox.bad_result")).toBe(60);
    expect(outcomes.has("untyped")).toBe(false);
    expect(grownMb).toBeLessThan(150);
  }, 120_000);

  it("runs JavaScript jobs concurrently", async () => {
    const jobs = Array.from({ length: 12 }, (_, i) =>
      sandbox.run({
        language: "javascript",
        code: "function main({ i }) { let s = 0; for (let k = 0; k < 1e5; k++) s += k; return { i, s } }",
        inputs: { i },
      }),
    );
    const results = await Promise.all(jobs);
    expect(results.map((r) => (r as { i: number }).i)).toEqual(Array.from({ length: 12 }, (_, i) => i));
  });

  it("can close its workers and start new ones on the next run", async () => {
    await closeJavaScriptWorkers();
    await expect(
      sandbox.run({ language: "javascript", code: "function main() { return { ok: 1 } }", inputs: {} }),
    ).resolves.toEqual({
      ok: 1,
    });
  });

  it("runs many Python jobs without leaving processes or directories behind", async () => {
    const before = readdirSync(tmpdir()).filter((f) => f.startsWith("weft-py-")).length;
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        sandbox
          .run({ language: "python3", code: "def main(i):\n    return {'sq': i * i}\n", inputs: { i } })
          .then((r) => (r as { sq: number }).sq),
      ),
    );
    expect(results).toEqual([0, 1, 4, 9, 16, 25, 36, 49]);
    for (let i = 0; i < 10; i++) {
      await expect(
        sandbox.run({ language: "python3", code: "def main():\n    raise RuntimeError('x')\n", inputs: {} }),
      ).rejects.toMatchObject({ code: "sandbox.runtime_error" });
    }
    const after = readdirSync(tmpdir()).filter((f) => f.startsWith("weft-py-")).length;
    expect(after).toBeLessThanOrEqual(before);
  }, 120_000);
});
