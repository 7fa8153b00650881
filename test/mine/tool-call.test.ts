import { describe, expect, it } from "vitest";
import { runWorkflow } from "../../src/engine/run.js";
import { toolCorrectness } from "../../src/eval/metrics/tc.js";
import { WorkflowSchema } from "../../src/ir/workflow.js";
import { mineWorkflow } from "../../src/mine/index.js";
import { callsFromTrace } from "../../src/optimize/evaluate.js";
import {
  DirectoryTools,
  EXECUTOR,
  executorReply,
  isExecutor,
  phoneOf,
  phoneRecords,
  TOOL_SPECS,
} from "../optimize/fixtures.js";
import { replayServerPerFile } from "../support/per-file.js";
import { replayLlm } from "../support/replay-llm.js";
import { reply } from "../support/replay-server.js";

const server = replayServerPerFile();

const llm = () => replayLlm(server);
const model = { provider: "openai", name: EXECUTOR, mode: "chat", completion_params: {} };

function callWorkflow(config: Record<string, unknown>) {
  return WorkflowSchema.parse({
    mode: "workflow",
    nodes: [
      { id: "start", type: "start", config: { variables: [{ variable: "query", type: "paragraph", required: true }] } },
      {
        id: "call",
        type: "tool-call",
        config: { model, context: [{ variable: "task", value_selector: ["start", "query"] }], ...config },
      },
      {
        id: "end",
        type: "end",
        config: {
          outputs: [
            { variable: "result", value_selector: ["call", "result"] },
            { variable: "tool", value_selector: ["call", "tool"] },
            { variable: "error", value_selector: ["call", "error"] },
          ],
        },
      },
    ],
    edges: [
      { source: "start", target: "call" },
      { source: "call", target: "end" },
    ],
  });
}

describe("tool-call node", () => {
  it("offers the candidates as functions, validates, calls the tool and records the call in the trace", async () => {
    server.enqueue(reply.toolCall("find_person", { name: "alice" }));
    const tools = new DirectoryTools();
    const r = await runWorkflow(callWorkflow({ candidates: ["find_person"] }), {
      inputs: { query: "who is alice?" },
      services: { llm: llm(), tools },
    });
    expect(r.status).toBe("succeeded");
    expect(r.outputs).toEqual({ result: '{"id":"P-alice"}', tool: "find_person", error: "" });
    const sent = server.requests[0]!.body;
    expect(sent.tools.map((t: any) => t.function.name)).toEqual(["find_person"]);
    expect(sent.messages[1].content).toContain("## task\nwho is alice?");
    const attempt = r.trace.find((a) => a.nodeId === "call")!;
    expect(attempt.meta).toEqual({
      tool_call: { tool: "find_person", arguments: { name: "alice" }, response: '{"id":"P-alice"}' },
    });
    expect(callsFromTrace(r.trace)).toEqual([{ name: "find_person", arguments: { name: "alice" } }]);
  });

  it("offers every listed tool without candidates, and repairs arguments that break the schema once", async () => {
    server.enqueue(reply.toolCall("get_phone", { id: "alice" }), reply.toolCall("get_phone", { id: "P-alice" }));
    const r = await runWorkflow(callWorkflow({}), {
      inputs: { query: "phone of P-alice" },
      services: { llm: llm(), tools: new DirectoryTools() },
    });
    expect(r.status).toBe("succeeded");
    expect(r.outputs.result).toBe(JSON.stringify({ phone: phoneOf("alice") }));
    expect(server.requests[0]!.body.tools.map((t: any) => t.function.name)).toEqual(TOOL_SPECS.map((t) => t.name));
    const repair = server.requests[1]!.body.messages.at(-1).content as string;
    expect(repair).toContain("That call is invalid");
    expect(repair).toContain('/id must match pattern "^P-"');
  });

  it("fails with a typed error when the arguments stay invalid, or the model calls a tool not offered", async () => {
    server.enqueue(reply.toolCall("get_phone", {}), reply.toolCall("get_phone", {}));
    const r = await runWorkflow(callWorkflow({ candidates: ["get_phone"] }), {
      inputs: { query: "x" },
      services: { llm: llm(), tools: new DirectoryTools() },
    });
    expect(r.status).toBe("failed");
    expect(r.error).toMatchObject({ code: "tool_call.invalid_arguments", nodeId: "call" });
    expect(r.error!.message).toContain("must have required property 'id'");

    server.enqueue(reply.toolCall("get_email", { id: "P-a" }));
    const r2 = await runWorkflow(callWorkflow({ candidates: ["get_phone"], max_repairs: 0 }), {
      inputs: { query: "x" },
      services: { llm: llm(), tools: new DirectoryTools() },
    });
    expect(r2.error?.message).toContain('"get_email" is not an offered tool');
  });

  it("records a tool failure as the error output by default, and fails the node with on_tool_error: fail", async () => {
    server.enqueue(reply.toolCall("find_person", { name: "zed" }));
    const r = await runWorkflow(callWorkflow({ candidates: ["find_person"] }), {
      inputs: { query: "x" },
      services: { llm: llm(), tools: new DirectoryTools() },
    });
    expect(r.status).toBe("succeeded");
    expect(r.outputs.error).toBe("directory.not_found: nobody called zed");
    expect(r.outputs.result).toBe("ERROR: directory.not_found: nobody called zed");

    server.enqueue(reply.toolCall("find_person", { name: "zed" }));
    const r2 = await runWorkflow(callWorkflow({ candidates: ["find_person"], on_tool_error: "fail" }), {
      inputs: { query: "x" },
      services: { llm: llm(), tools: new DirectoryTools() },
    });
    expect(r2.error).toMatchObject({ code: "directory.not_found", nodeId: "call" });
  });

  it("rejects unknown candidates and a missing tool service with typed errors", async () => {
    const r = await runWorkflow(callWorkflow({ candidates: ["nope"] }), {
      inputs: { query: "x" },
      services: { llm: llm(), tools: new DirectoryTools() },
    });
    expect(r.error).toMatchObject({ code: "tool_call.unknown_candidate", nodeId: "call" });
    const r2 = await runWorkflow(callWorkflow({}), { inputs: { query: "x" }, services: { llm: llm() } });
    expect(r2.error?.code).toBe("tool.not_configured");
    expect(server.requests).toHaveLength(0);
  });
});

describe("a mined workflow runs", () => {
  it("plans, calls the mined tool positions with arguments from the context and synthesises the answer", async () => {
    server.when(isExecutor, executorReply, { times: Infinity });
    const recs = phoneRecords();
    const { workflow, treeText } = mineWorkflow(recs, {
      model: { provider: "openai", name: EXECUTOR },
      tools: TOOL_SPECS,
    });
    expect(treeText).toBe("->('find_person', 'get_phone')");
    const rec = recs[2]!;
    const r = await runWorkflow(workflow, {
      inputs: { query: rec.query },
      services: { llm: llm(), tools: new DirectoryTools() },
    });
    expect(r.status).toBe("succeeded");
    expect(r.outputs.answer).toBe(rec.reference);
    const predicted = callsFromTrace(r.trace);
    expect(
      toolCorrectness(
        rec.calls.map((c) => ({ name: c.tool, arguments: c.arguments })),
        predicted,
      ).tc,
    ).toBe(1);
    expect(server.requests[0]!.body.messages[0].content).toContain("- get_phone: Phone number of a person id");
  });
});

describe("mined control flow runs on the engine", () => {
  const rec = (id: string, tools: string[]) => ({
    id,
    query: "What is the phone number of bob?",
    reference: "",
    calls: tools.map((tool) => ({ tool, arguments: {} })),
  });
  const run = async (logs: string[][]) => {
    server.when(isExecutor, executorReply, { times: Infinity });
    const { workflow, treeText } = mineWorkflow(
      logs.map((l, i) => rec(`r${i}`, l)),
      { model: { provider: "openai", name: EXECUTOR }, tools: TOOL_SPECS },
    );
    const r = await runWorkflow(workflow, {
      inputs: { query: "What is the phone number of bob?" },
      services: { llm: llm(), tools: new DirectoryTools() },
    });
    return { r, treeText, calls: callsFromTrace(r.trace).map((c) => c.name) };
  };

  it("choice: the if-else follows the plan (which names get_phone)", async () => {
    const { r, treeText, calls } = await run([
      ["find_person", "get_phone"],
      ["find_person", "get_email"],
    ]);
    expect(treeText).toBe("->('find_person', X('get_email', 'get_phone'))");
    expect(r.status).toBe("succeeded");
    expect(calls).toEqual(["find_person", "get_phone"]);
    expect(r.outputs.answer).toBe(`The phone number of bob is ${phoneOf("bob")}.`);
  });

  it("parallel: both branches run and the synthesis waits for them", async () => {
    const { r, treeText, calls } = await run([
      ["find_person", "get_phone", "get_email"],
      ["find_person", "get_email", "get_phone"],
    ]);
    expect(treeText).toBe("->('find_person', +('get_email', 'get_phone'))");
    expect(r.status).toBe("succeeded");
    expect(calls.slice(0, 1)).toEqual(["find_person"]);
    expect([...calls.slice(1)].sort()).toEqual(["get_email", "get_phone"]);
    expect(r.outputs.answer).toContain(phoneOf("bob"));
  });

  it("loop: the retry loop stops after the first round with a result", async () => {
    const { r, treeText, calls } = await run([
      ["find_person", "get_phone"],
      ["find_person", "get_phone", "get_phone"],
    ]);
    expect(treeText).toBe("->('find_person', *('get_phone', tau))");
    expect(r.status).toBe("succeeded");
    expect(calls).toEqual(["find_person", "get_phone"]);
    expect(r.outputs.answer).toContain(phoneOf("bob"));
  });
});
