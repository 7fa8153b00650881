import { describe, expect, it } from "vitest";
import { generateWorkflow } from "../../src/authoring/generate.js";
import { type AgentEvent, runAgent } from "../../src/authoring/react.js";
import { variableSummary } from "../../src/dsl/compact/index.js";
import { replayServerPerFile } from "../support/per-file.js";
import { replayLlm } from "../support/replay-llm.js";
import { reply } from "../support/replay-server.js";

const server = replayServerPerFile();

const llm = () => replayLlm(server);
const model = { provider: "weft", name: "planner" };
const answer = (sel: string, wf: unknown) =>
  `<node_selection>${sel}</node_selection>\n<design_principle>Straightforward.</design_principle>\n<workflow>${typeof wf === "string" ? wf : JSON.stringify(wf)}</workflow>`;

const good = {
  nodes_info: [
    { id: "1", type: "start", param: { variables: [["text", "string"]] } },
    { id: "2", type: "template-transform", param: { variables: [["t", ["text", "1"]]], template: "<{{ t }}>" } },
    { id: "3", type: "end", param: { outputs: [["result", ["output", "2"]]] } },
  ],
  edges: [
    ["1", 0, "2"],
    ["2", 0, "3"],
  ],
};

describe("generateWorkflow", () => {
  it("accepts a correct answer at the first attempt", async () => {
    server.enqueue(reply.text(answer("Start, Template, End", good)));
    const r = await generateWorkflow({ llm: llm(), model, instruction: "wrap the text in angle brackets" });
    expect(r.passed).toBe(true);
    expect(r.attempts).toHaveLength(1);
    expect(r.workflow!.nodes.map((n) => n.type)).toEqual(["start", "template-transform", "end"]);
    const sent = server.requests[0]!.body.messages;
    expect(sent[0].role).toBe("system");
    expect(sent[0].content).toContain("### template-transform");
    expect(sent[1].content).toBe("wrap the text in angle brackets");
  });

  it("repairs fences, JSON syntax and ordering without asking the model again", async () => {
    const messy = `\`\`\`json\n${JSON.stringify({ ...good, nodes_info: [...good.nodes_info].reverse() }).replace(/\]\]\}$/, "],]}")}\n\`\`\``;
    server.enqueue(reply.text(answer("Start, LLM, End", messy)));
    const r = await generateWorkflow({ llm: llm(), model, instruction: "x" });
    expect(r.passed).toBe(true);
    expect(r.attempts).toHaveLength(1);
    expect([...new Set(r.attempts[0]!.repairs.map((x) => x.kind))].sort()).toEqual([
      "fences",
      "json",
      "selection",
      "topology",
    ]);
  });

  it("feeds typed diagnostics back until the model fixes the workflow", async () => {
    const dangling = {
      ...good,
      nodes_info: [
        good.nodes_info[0],
        good.nodes_info[1],
        { id: "3", type: "end", param: { outputs: [["result", ["nope", "2"]]] } },
      ],
    };
    server.enqueue(
      reply.text("I think the workflow is fine."),
      reply.text(answer("Start, Template, End", dangling)),
      reply.text(answer("Start, Template, End", good)),
    );
    const r = await generateWorkflow({ llm: llm(), model, instruction: "x", testInputs: [{ text: "hi" }] });
    expect(r.passed).toBe(true);
    expect(r.attempts.map((a) => a.passed)).toEqual([false, false, true]);
    expect(r.attempts[0]!.problems.map((p) => p.code)).toContain("answer.missing_tag");
    expect(r.attempts[1]!.problems.map((p) => p.code)).toContain("ref.missing_output");
    const feedback = server.requests[2]!.body.messages.at(-1).content as string;
    expect(feedback).toContain("ref.missing_output");
  });

  it("gives up after maxAttempts and reports the last problems", async () => {
    for (let i = 0; i < 3; i++) server.enqueue(reply.text("no tags"));
    const r = await generateWorkflow({ llm: llm(), model, instruction: "x", maxAttempts: 3 });
    expect(r.passed).toBe(false);
    expect(r.attempts).toHaveLength(3);
    expect(server.requests).toHaveLength(3);
  });

  it("runs a 3-turn session: turn 2 adds an iteration, turn 3 changes outputs", async () => {
    const turn2 = {
      nodes_info: [
        {
          id: "1",
          type: "start",
          param: {
            variables: [
              ["text", "string"],
              ["items", "object"],
            ],
          },
        },
        { id: "2", type: "template-transform", param: { variables: [["t", ["text", "1"]]], template: "<{{ t }}>" } },
        {
          id: "3",
          type: "iteration",
          param: { iterator_selector: ["items.list", "1"], output_selector: ["output", "3-2"] },
        },
        { id: "3-1", type: "iteration-start", param: {} },
        { id: "3-2", type: "template-transform", param: { variables: [["x", ["item", "3"]]], template: "[{{ x }}]" } },
        {
          id: "4",
          type: "end",
          param: {
            outputs: [
              ["result", ["output", "2"]],
              ["each", ["output", "3"]],
            ],
          },
        },
      ],
      edges: [
        ["1", 0, "2"],
        ["2", 0, "3"],
        ["3-1", 0, "3-2"],
        ["3", 0, "4"],
      ],
    };
    const turn3 = {
      ...turn2,
      nodes_info: [
        ...turn2.nodes_info.slice(0, 5),
        { id: "4", type: "end", param: { outputs: [["each", ["output", "3"]]] } },
      ],
    };
    server.enqueue(
      reply.text(answer("Start, Template, End", good)),
      reply.text(answer("Start, Template, Iteration, Iteration-Start, End", turn2)),
      reply.text(answer("Start, Template, Iteration, Iteration-Start, End", turn3)),
    );
    const l = llm();
    const t1 = await generateWorkflow({ llm: l, model, instruction: "wrap text" });
    const t2 = await generateWorkflow({
      llm: l,
      model,
      instruction: "also bracket each item",
      history: t1.turn,
      current: t1.workflow,
    });
    expect(t2.passed).toBe(true);
    expect(t2.workflow!.nodes.some((n) => n.type === "iteration")).toBe(true);
    const t3 = await generateWorkflow({
      llm: l,
      model,
      instruction: "only output each",
      history: [...t1.turn, ...t2.turn],
      current: t2.workflow,
    });
    expect(t3.passed).toBe(true);
    const sent3 = server.requests[2]!.body.messages;
    const last = sent3.at(-1).content as string;
    // the variable summary of turn 2's workflow is what turn 3 sees
    expect(last).toContain("Inputs (start): text (string), items (object)");
    expect(last).toContain("Outputs: result (string), each (array[string])");
    expect(variableSummary(t3.workflow!).outputs.map((o) => o.name)).toEqual(["each"]);
    expect(sent3.filter((m: { role: string }) => m.role === "user")).toHaveLength(3);
  });
});

describe("ReAct workflow agent", () => {
  it("edits through validated tool calls and streams events", async () => {
    const broken = { ...good, edges: [["1", 0, "2"]] };
    server.enqueue(
      reply.toolCall("get_available_nodes", {}),
      reply.toolCall("update_workflow", { workflow: broken }),
      reply.toolCall("update_workflow", { workflow: good }),
      reply.toolCall("test_workflow", { inputs: { text: "yo" } }),
      reply.text("Done: the workflow wraps the text."),
    );
    const events: AgentEvent[] = [];
    const r = await runAgent("make a wrapper", { llm: llm(), model, onEvent: (e) => events.push(e) });
    expect(r.updated).toBe(true);
    expect(r.reply).toMatch(/^Done/);
    expect(r.iterations).toBe(5);
    const results = events.filter((e) => e.type === "tool_result") as Array<
      Extract<AgentEvent, { type: "tool_result" }>
    >;
    expect(results.map((e) => [e.tool, e.ok])).toEqual([
      ["get_available_nodes", true],
      ["update_workflow", false],
      ["update_workflow", true],
      ["test_workflow", true],
    ]);
    expect(JSON.stringify(results[1]!.result)).toContain("graph.unreachable");
    expect((results[3]!.result as { outputs: unknown }).outputs).toEqual({ result: "<yo>" });
    expect(events.map((e) => e.type)).toContain("message");
    // the tool results went back to the model as tool messages
    expect(server.requests[2]!.body.messages.some((m: { role: string }) => m.role === "tool")).toBe(true);
  });

  it("stops at the iteration limit with an error event", async () => {
    server.when(() => true, reply.toolCall("get_current_workflow", {}), { times: Infinity });
    const events: AgentEvent[] = [];
    const r = await runAgent("loop forever", { llm: llm(), model, maxIterations: 3, onEvent: (e) => events.push(e) });
    expect(r.iterations).toBe(3);
    expect(events.at(-1)).toMatchObject({ type: "error", code: "agent.max_iterations" });
  });
});
