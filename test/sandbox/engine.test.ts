import { describe, expect, it } from "vitest";
import { runWorkflow } from "../../src/engine/run.js";
import { WorkflowSchema } from "../../src/ir/workflow.js";
import { createSandbox } from "../../src/sandbox/index.js";

/** start → code (Python) → code (JavaScript) → end, run by the real engine with the real sandbox. */
function workflow(pyCode: string) {
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
          code: pyCode,
          outputs: { words: { type: "array[string]", children: null }, count: { type: "number", children: null } },
        },
      },
      {
        id: "js",
        type: "code",
        config: {
          variables: [
            { variable: "words", value_selector: ["py", "words"] },
            { variable: "count", value_selector: ["py", "count"] },
          ],
          code_language: "javascript",
          code: "function main({ words, count }) {\n  return { summary: count + ': ' + words.join('|') }\n}",
          outputs: { summary: { type: "string", children: null } },
        },
      },
      { id: "end", type: "end", config: { outputs: [{ variable: "summary", value_selector: ["js", "summary"] }] } },
    ],
    edges: [
      { source: "start", target: "py" },
      { source: "py", target: "js" },
      { source: "js", target: "end" },
    ],
  });
}

const services = { sandbox: createSandbox({ limits: { timeoutMs: 5000 } }) };

describe("code nodes in the engine", () => {
  it("chains Python and JavaScript code nodes through the variable pool", async () => {
    const wf = workflow(
      "import re\n\ndef main(text: str) -> dict:\n    words = re.findall(r'\\w+', text)\n    return {'words': words, 'count': len(words)}\n",
    );
    const r = await runWorkflow(wf, { inputs: { text: "hello sandbox world" }, services });
    expect(r.error).toBeUndefined();
    expect(r.status).toBe("succeeded");
    expect(r.outputs).toEqual({ summary: "3: hello|sandbox|world" });
  });

  it("fails the run with the sandbox's code and the node id when the code is forbidden", async () => {
    const wf = workflow("import subprocess\n\ndef main(text):\n    return {'words': [], 'count': 0}\n");
    const r = await runWorkflow(wf, { inputs: { text: "x" }, services });
    expect(r.status).not.toBe("succeeded");
    expect(r.error).toMatchObject({ code: "sandbox.forbidden", nodeId: "py" });
  });
});
