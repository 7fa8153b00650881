import { describe, expect, it } from "vitest";
import {
  parseAnswer,
  parseModelJson,
  repairNodeSelection,
  repairReferences,
  repairTopology,
  stripFences,
} from "../../src/authoring/repair/index.js";
import { compactToWorkflow } from "../../src/dsl/compact/index.js";

const wf = (nodes: unknown[], edges: unknown[]) => JSON.stringify({ nodes_info: nodes, edges });
const answer = (sel: string, json: string) =>
  `<node_selection>${sel}</node_selection>\n<design_principle>why</design_principle>\n<workflow>${json}</workflow>`;
const simple = wf(
  [
    { id: "1", type: "start", param: { variables: [["q", "string"]] } },
    { id: "2", type: "llm", param: { system: "s", user: "{{#'1'.q#}}" } },
    { id: "3", type: "end", param: { outputs: [["a", ["text", "2"]]] } },
  ],
  [
    ["1", 0, "2"],
    ["2", 0, "3"],
  ],
);

describe("answer repairs", () => {
  it("reads a well-formed answer without repairs", () => {
    const r = parseAnswer(answer("Start, LLM, End", simple), { repair: true });
    expect(r.diagnostics).toEqual([]);
    expect(r.repairs).toEqual([]);
    expect(compactToWorkflow(r.json).diagnostics).toEqual([]);
  });

  it("strips code fences, even an unclosed one", () => {
    expect(stripFences('```json\n{"a":1}\n```')).toEqual({ text: '{"a":1}', repaired: true });
    expect(stripFences('```json\n{"a":1}')).toEqual({ text: '{"a":1}', repaired: true });
    const r = parseAnswer(answer("Start, LLM, End", `\`\`\`json\n${simple}\n\`\`\``), { repair: true });
    expect(r.repairs.map((x) => x.kind)).toEqual(["fences"]);
    expect(r.compact?.nodes_info).toHaveLength(3);
  });

  it("repairs unclosed and decorated tags, and the strict reading rejects them", () => {
    const text = `<node_selection>Start, LLM, End</node_selection><design_principle>why</design_principle><workflow lang="json">${simple}`;
    expect(parseAnswer(text).diagnostics.map((d) => d.code)).toEqual(["answer.missing_tag"]);
    const r = parseAnswer(text, { repair: true });
    expect(r.diagnostics).toEqual([]);
    expect(r.repairs[0]!.kind).toBe("tags");
  });

  it("repairs trailing commas, comments, single quotes and truncation", () => {
    expect(parseModelJson('{"a": [1, 2,],}').value).toEqual({ a: [1, 2] });
    expect(parseModelJson('{"a": 1 // note\n}').value).toEqual({ a: 1 });
    expect(parseModelJson("{'a': 'x'}").value).toEqual({ a: "x" });
    const truncated = parseModelJson('{"nodes_info": [{"id": "1", "type": "start", "param": {}}');
    expect(truncated.value).toEqual({ nodes_info: [{ id: "1", type: "start", param: {} }] });
    expect(truncated.repairs[0]!.detail).toMatch(/truncated/);
    const words = parseAnswer(answer("Start", "just words"), { repair: true });
    expect(words.diagnostics.map((d) => d.code)).toContain("answer.not_workflow");
  });

  it("reorders nodes into dependency order without changing them", () => {
    const c = {
      nodes_info: [
        { id: "3", type: "end", param: { outputs: [["a", ["text", "2"]]] } },
        { id: "2", type: "llm", param: { system: "", user: "{{#'1'.q#}}" } },
        { id: "1", type: "start", param: { variables: [["q", "string"]] } },
      ],
      edges: [
        ["1", 0, "2"],
        ["2", 0, "3"],
      ],
    };
    const r = repairTopology(c);
    expect(r.compact.nodes_info.map((n) => n.id)).toEqual(["1", "2", "3"]);
    expect(r.repairs[0]!.kind).toBe("topology");
    expect(new Set(r.compact.nodes_info)).toEqual(new Set(c.nodes_info));
  });

  it("keeps iteration children right after their iteration, start child first", () => {
    const c = {
      nodes_info: [
        { id: "1", type: "start", param: { variables: [["xs", "array[string]"]] } },
        { id: "2-2", type: "llm", param: { user: "{{#'2'.item#}}" } },
        { id: "3", type: "end", param: { outputs: [["o", ["output", "2"]]] } },
        { id: "2", type: "iteration", param: { iterator_selector: ["xs", "1"], output_selector: ["text", "2-2"] } },
        { id: "2-1", type: "iteration-start", param: {} },
      ],
      edges: [
        ["1", 0, "2"],
        ["2-1", 0, "2-2"],
        ["2", 0, "3"],
      ],
    };
    expect(repairTopology(c).compact.nodes_info.map((n) => n.id)).toEqual(["1", "2", "2-1", "2-2", "3"]);
  });

  it("rewrites node_selection to the types used", () => {
    const c = JSON.parse(simple);
    expect(repairNodeSelection("Start, LLM (x2), End", c).repairs).toEqual([]);
    const r = repairNodeSelection("Start, LLM, Template, End", c);
    expect(r.selection).toBe("Start, LLM, End");
    expect(r.repairs[0]!.detail).toMatch(/removed template-transform/);
    expect(repairNodeSelection("Start, End", c).repairs[0]!.detail).toMatch(/added llm/);
  });

  it("fixes references only when the target is unambiguous", () => {
    const c = {
      nodes_info: [
        { id: "1", type: "start", param: { variables: [["q", "string"]] } },
        { id: "2", type: "llm", param: { user: "{{#'9'.q#}}" } },
        {
          id: "3",
          type: "end",
          param: {
            outputs: [
              ["a", ["2", "text"]],
              ["b", ["text", "7"]],
            ],
          },
        },
      ],
      edges: [],
    };
    const r = repairReferences(c);
    const end = r.compact.nodes_info[2]!.param.outputs as unknown[];
    expect(end).toEqual([
      ["a", ["text", "2"]],
      ["b", ["text", "2"]],
    ]);
    expect(r.compact.nodes_info[1]!.param.user).toBe("{{#'1'.q#}}");
    expect(r.repairs).toHaveLength(3);
    const two = { ...c, nodes_info: [...c.nodes_info, { id: "4", type: "llm", param: { user: "x" } }] };
    expect((repairReferences(two).compact.nodes_info[2]!.param.outputs as unknown[])[1]).toEqual(["b", ["text", "7"]]);
  });
});
