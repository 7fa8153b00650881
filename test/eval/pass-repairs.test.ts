/** Fixes made to the converter and repair modules while measuring the recorded answers. */
import { describe, expect, it } from "vitest";
import { parseModelJson, repairReferences } from "../../src/authoring/repair/index.js";
import { balanceBrackets } from "../../src/authoring/repair/json.js";
import { compactToWorkflow } from "../../src/dsl/compact/index.js";

const start = { id: "1", type: "start", param: { variables: [["q", "string"]] } };
const llm = { id: "2", type: "llm", param: { system: "s", user: "{{#'1'.q#}}" } };

describe("converter: tool text params", () => {
  it("reports a [var, id] tuple in a text param instead of sending its JSON text to the tool", () => {
    const r = compactToWorkflow({
      nodes_info: [
        start,
        llm,
        { id: "3", type: "markdown-exporter", param: { target_type: "pdf", md_text: ["text", "2"] } },
        { id: "4", type: "end", param: { outputs: [["f", ["files", "3"]]] } },
      ],
      edges: [
        ["1", 0, "2"],
        ["2", 0, "3"],
        ["3", 0, "4"],
      ],
    });
    expect(r.diagnostics.map((d) => `${d.code}@${d.nodeId}.${d.field}`)).toEqual(["compact.bad_text@3.md_text"]);
  });

  it("reports a missing text param", () => {
    const r = compactToWorkflow({ nodes_info: [start, { id: "2", type: "tts", param: {} }], edges: [["1", 0, "2"]] });
    expect(r.diagnostics.map((d) => d.code)).toEqual(["compact.missing_param"]);
  });

  it("still converts well-formed tool params", () => {
    const r = compactToWorkflow({
      nodes_info: [
        start,
        {
          id: "2",
          type: "echarts",
          param: { chart_type: "pie", chart_title: "t", data: "1;2", x_axisORcategories: "a;b" },
        },
      ],
      edges: [["1", 0, "2"]],
    });
    expect(r.diagnostics).toEqual([]);
    expect(r.workflow!.nodes[1]!.config.tool_parameters).toMatchObject({
      categories: { value: "a;b" },
      data: { value: "1;2" },
    });
  });
});

describe("repair: references", () => {
  it("writes a tuple in a text field as a {{#…#}} reference", () => {
    const r = repairReferences({
      nodes_info: [start, llm, { id: "3", type: "tts", param: { text: ["text", "2"] } }],
      edges: [],
    });
    expect(r.compact.nodes_info[2]!.param.text).toBe("{{#'2'.text#}}");
    expect(r.repairs[0]!.kind).toBe("reference");
  });

  it("unwraps [name, [var, id]] aggregator inputs and completes bare ids only when unambiguous", () => {
    const code = {
      id: "3",
      type: "code",
      param: {
        variables: [],
        outputs: [
          ["a", "string"],
          ["b", "string"],
        ],
        code: "",
      },
    };
    const agg = { id: "4", type: "variable-aggregator", param: { variables: [["x", ["text", "2"]], "2", "3"] } };
    const r = repairReferences({ nodes_info: [start, llm, code, agg], edges: [] });
    expect(r.compact.nodes_info[3]!.param.variables).toEqual([["text", "2"], ["text", "2"], "3"]);
    expect(r.repairs).toHaveLength(2);
  });
});

describe("repair: JSON brackets", () => {
  it("replaces a mistyped closing bracket, ignoring brackets inside strings", () => {
    expect(balanceBrackets('{"a": [1, 2}, "b": "x]}"}')).toEqual({ text: '{"a": [1, 2], "b": "x]}"}', changed: 1 });
    expect(balanceBrackets('{"a": [1]}').changed).toBe(0);
  });

  it("closes an object left open before the next list element, and reads ) as a closer", () => {
    // Node 1's closing brace is missing: `}, {` inside an object cannot be a member.
    const dropped = '{"nodes": [{"id": "1", "param": {"x": 1}, {"id": "2", "param": {}}]}';
    expect(JSON.parse(balanceBrackets(dropped).text)).toEqual({
      nodes: [
        { id: "1", param: { x: 1 } },
        { id: "2", param: {} },
      ],
    });
    expect(JSON.parse(balanceBrackets('{"v": [["a", ["t", "3"]), ["b", ["o", "4"]]]}').text)).toEqual({
      v: [
        ["a", ["t", "3"]],
        ["b", ["o", "4"]],
      ],
    });
    expect(balanceBrackets('{"s": "a), {b"}').changed).toBe(0);
  });

  it("recovers the intended shape of a list closed with }", () => {
    const broken = '{"param": {"variables": [["a", ["x", "1"]], ["b", ["y", "1"]]\n}, "outputs": [["r", "string"]]}}';
    const r = parseModelJson(broken);
    expect(r.error).toBeUndefined();
    expect(r.value).toEqual({
      param: {
        variables: [
          ["a", ["x", "1"]],
          ["b", ["y", "1"]],
        ],
        outputs: [["r", "string"]],
      },
    });
    expect(r.repairs[0]!.detail).toMatch(/mismatched closing bracket/);
  });
});
