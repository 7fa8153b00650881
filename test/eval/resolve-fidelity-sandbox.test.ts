/**
 * R12 (issue 37; the fix belongs to the Dify-parity issue): Dify's Python sandbox lets a code node
 * `import sys`, and upstream's resolve stage runs such nodes there. Four recorded answers import it (Code_2
 * of DeepSeek-V3.1, GLM-4.6, Qwen-3-14B, Qwen-3-32B; none survived upstream's pass stage). Until issue 35
 * item 10 Weft refused the node with `sandbox.forbidden` naming sys; now `import sys` gives a read-only view
 * of it (version, limits, stdout), as Dify runs such nodes.
 */
import { describe, expect, it } from "vitest";
import { runWorkflow } from "../../src/engine/run.js";
import { WorkflowSchema } from "../../src/ir/workflow.js";
import { createSandbox } from "../../src/sandbox/index.js";

function workflow(code: string) {
  return WorkflowSchema.parse({
    mode: "workflow",
    nodes: [
      { id: "start", type: "start", config: { variables: [{ variable: "text", type: "paragraph", required: true }] } },
      {
        id: "py",
        type: "code",
        config: {
          variables: [{ variable: "text", value_selector: ["start", "text"] }],
          code_language: "python3",
          code,
          outputs: { out: { type: "string", children: null } },
        },
      },
      { id: "end", type: "end", config: { outputs: [{ variable: "out", value_selector: ["py", "out"] }] } },
    ],
    edges: [
      { source: "start", target: "py" },
      { source: "py", target: "end" },
    ],
  });
}

const services = { sandbox: createSandbox({ limits: { timeoutMs: 10_000 } }) };

describe("R12 Python code nodes that import sys", () => {
  it("run, as in Dify (refused with sandbox.forbidden before issue 35)", async () => {
    const r = await runWorkflow(
      workflow("import sys\n\ndef main(text: str) -> dict:\n    return {'out': text + str(sys.maxsize > 0)}\n"),
      {
        inputs: { text: "x" },
        services,
      },
    );
    expect(r.error).toBeUndefined();
    expect(r.outputs).toEqual({ out: "xTrue" });
  }, 60_000);

  it("the same node without the import runs", async () => {
    const r = await runWorkflow(workflow("def main(text: str) -> dict:\n    return {'out': text + 'y'}\n"), {
      inputs: { text: "x" },
      services,
    });
    expect(r.outputs).toEqual({ out: "xy" });
  }, 60_000);
});
