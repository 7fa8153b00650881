/**
 * `analyse` computes the burden report when it is first read: `weft run` and validation read only the
 * diagnostics, and the report (liveness, token estimates per node) was start-up work of every run (issue 33).
 */
import { describe, expect, it, vi } from "vitest";

const computed = vi.hoisted(() => ({ calls: 0 }));
vi.mock("../../src/analysis/burden/burden.js", async (original) => {
  const m = await original<typeof import("../../src/analysis/burden/burden.js")>();
  return {
    ...m,
    computeBurden: (...args: Parameters<typeof m.computeBurden>) => {
      computed.calls++;
      return m.computeBurden(...args);
    },
  };
});

// The shared project (vitest.config.ts) keeps modules from file to file: import afresh, so the mock applies.
vi.resetModules();
const { analyse } = await import("../../src/analysis/index.js");
const { nodeCatalogue } = await import("../../src/nodes/index.js");
const { readWorkflow } = await import("../../src/cli/io.js");

describe("the burden report", () => {
  it("is computed when first read, once, and not for a caller that reads only the diagnostics", async () => {
    const { workflow } = await readWorkflow(new URL("../../examples/word-stats.yml", import.meta.url).pathname);
    const result = analyse(workflow, nodeCatalogue);
    expect(result.diagnostics).toEqual([]);
    expect(computed.calls).toBe(0);
    const burden = result.burden;
    expect(burden.workflow.decisionPoints).toBeGreaterThan(0);
    expect(result.burden).toBe(burden);
    expect(computed.calls).toBe(1);
    // Read as a plain property would be: spread and serialised with the rest.
    expect(JSON.parse(JSON.stringify(result)).burden).toEqual(JSON.parse(JSON.stringify(burden)));
  });
});
