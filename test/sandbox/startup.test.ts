/**
 * `timeout_seconds` measures the user's code, not the sandbox start-up (issue 16, item 5). A loaded
 * machine is stood in for by an interpreter that takes 3.5 s to start: before the fix, trivial code
 * with a 1–2 s timeout failed (the node timer and the sandbox clock both started at spawn).
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runWorkflow } from "../../src/engine/run.js";
import { createSandbox, resolvePython } from "../../src/sandbox/index.js";
import { buildWorkflow } from "../support/build.js";

const dir = mkdtempSync(join(tmpdir(), "weft-slow-python-"));
// The jail shows the interpreter at its own path, read by the guest's unprivileged uid.
chmodSync(dir, 0o755);
let seq = 0;

/** A python3 that answers the interpreter probe at once and then starts `delayS` seconds late. */
async function slowPython(delayS: number): Promise<string> {
  const real = await resolvePython();
  const path = join(dir, `python-${seq++}`);
  writeFileSync(
    path,
    `#!/bin/sh\ncase "$2" in *sys.executable*) echo "$0"; exit 0;; esac\nsleep ${delayS}\nexec "${real}" "$@"\n`,
  );
  chmodSync(path, 0o755);
  return path;
}

function codeWorkflow(code: string, timeoutSeconds: number) {
  return buildWorkflow({
    nodes: [
      { id: "start", type: "start", variables: [] },
      {
        id: "code",
        type: "code",
        code_language: "python3",
        code,
        variables: [],
        outputs: { ok: { type: "number", children: null } },
        timeout_seconds: timeoutSeconds,
      },
      { id: "end", type: "end", outputs: [{ variable: "ok", value_selector: ["code", "ok"] }] },
    ],
    edges: [
      ["start", "code"],
      ["code", "end"],
    ],
  });
}

beforeAll(async () => {
  await resolvePython();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("sandbox start-up is not the user's time", () => {
  it("trivial code with a 1 s limit succeeds after a 3.5 s interpreter start", { timeout: 60_000 }, async () => {
    const sandbox = createSandbox({ python: await slowPython(3.5) });
    await expect(
      sandbox.run({
        language: "python3",
        code: "def main():\n    return {'ok': 1}\n",
        inputs: {},
        limits: { timeoutMs: 1000 },
      }),
    ).resolves.toEqual({ ok: 1 });
  });

  it("a code node with timeout_seconds: 2 succeeds after a 3.5 s start", { timeout: 60_000 }, async () => {
    const sandbox = createSandbox({ python: await slowPython(3.5) });
    const res = await runWorkflow(codeWorkflow("def main():\n    return {'ok': 1}\n", 2), { services: { sandbox } });
    expect(res.error).toBeUndefined();
    expect(res.outputs).toEqual({ ok: 1 });
  });

  it("the user's code is still held to its timeout once it starts", { timeout: 60_000 }, async () => {
    const sandbox = createSandbox({ python: await slowPython(3.5) });
    const res = await runWorkflow(
      codeWorkflow("import time\ndef main():\n    time.sleep(30)\n    return {'ok': 1}\n", 1),
      {
        services: { sandbox },
      },
    );
    expect(res.error).toMatchObject({ code: "sandbox.timeout", nodeId: "code" });
  });

  it("an interpreter that never starts fails with a clear error after the start-up allowance", {
    timeout: 60_000,
  }, async () => {
    const sandbox = createSandbox({ python: await slowPython(60), startupAllowanceMs: 1500 });
    await expect(
      sandbox.run({ language: "python3", code: "def main():\n    return {'ok': 1}\n", inputs: {} }),
    ).rejects.toMatchObject({
      code: "sandbox.unavailable",
      message: expect.stringMatching(/did not start within 1500 ms/),
    });
  });
});
