import { expect } from "vitest";
import type { SandboxService } from "../../src/ir/services.js";
import { createSandbox, SandboxError } from "../../src/sandbox/index.js";

export const sandbox: SandboxService = createSandbox({ limits: { timeoutMs: 3000, memoryBytes: 64 * 1024 * 1024 } });
/** The same limits, JavaScript guests first on the calling thread, as `weft run` has them. */
export const inlineSandbox: SandboxService = createSandbox({
  limits: { timeoutMs: 3000, memoryBytes: 64 * 1024 * 1024 },
  inlineJavaScript: true,
});

type Req = Parameters<SandboxService["run"]>[0];

/** Runs and returns the typed error, failing the test if the run succeeded or threw something untyped. */
export async function expectSandboxError(req: Req, code: string, message?: RegExp): Promise<SandboxError> {
  let caught: unknown;
  try {
    const r = await sandbox.run(req);
    caught = new Error(`expected ${code}, got result ${JSON.stringify(r).slice(0, 200)}`);
  } catch (e) {
    caught = e;
  }
  expect(caught).toBeInstanceOf(SandboxError);
  const err = caught as SandboxError;
  expect(err.code, err.message).toBe(code);
  if (message) expect(err.message).toMatch(message);
  // Errors are for people and traces: short and without host stack traces.
  expect(err.message.length).toBeLessThan(3000);
  return err;
}

/** The host must still work after an attack: a normal run in the same language succeeds. */
export async function expectHostHealthy(language: Req["language"]): Promise<void> {
  const code =
    language === "python3"
      ? "def main(a, b):\n    return {'sum': a + b}\n"
      : "function main({ a, b }) { return { sum: a + b } }";
  await expect(sandbox.run({ language, code, inputs: { a: 2, b: 3 } })).resolves.toEqual({ sum: 5 });
  expect(typeof process.env).toBe("object");
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
}
