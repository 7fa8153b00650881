/**
 * Issue 37 R1: under upstream fidelity the compact converter accepts what Chat2Workflow's converter accepts
 * (converter.py, nodes/dify/basic/start.py), with a warning each, restated here from upstream's rules:
 * - a start variable whose type is not string/number/boolean/file/array[file] is written with that type as
 *   given (start.py's `else` branch: any other `var[1]` is copied into `type`, with max_length 32768);
 * - a node `X-n` is marked as inside node X whatever X is (converter.py sets `iteration_id` from the part
 *   before "-"), and Dify runs it as an ordinary node; an X not defined before raises KeyError (a crash).
 * Weft's own fidelity keeps refusing both; the start node refuses an unknown type when analysed and run.
 */
import { describe, expect, it } from "vitest";
import { analyse } from "../../src/analysis/index.js";
import { compactToWorkflow } from "../../src/dsl/compact/index.js";
import { exportDify } from "../../src/dsl/dify/index.js";
import { NodeExecutionError } from "../../src/ir/errors.js";
import { nodeCatalogue } from "../../src/nodes/index.js";
import { resolveStartInputs } from "../../src/nodes/start.js";

const imageStart = {
  nodes_info: [
    {
      id: "1",
      type: "start",
      param: {
        variables: [
          ["photo", "image"],
          ["q", "string"],
        ],
      },
    },
    { id: "2", type: "llm", param: { system: "Describe.", user: "{{#'1'.q#}}" } },
    { id: "3", type: "end", param: { outputs: [["text", ["text", "2"]]] } },
  ],
  edges: [
    ["1", 0, "2"],
    ["2", 0, "3"],
  ],
};

// The shape of Qwen-3-32B's ExamQuestion_2 answer: answer nodes "4-1" follow the llm "4" they belong to.
const childOfLlm = {
  nodes_info: [
    { id: "1", type: "start", param: { variables: [["topic", "string"]] } },
    { id: "4", type: "llm", param: { system: "Questions.", user: "{{#'1'.topic#}}" } },
    { id: "4-1", type: "llm", param: { system: "Answers.", user: "{{#'4'.text#}}" } },
    {
      id: "9",
      type: "end",
      param: {
        outputs: [
          ["q", ["text", "4"]],
          ["a", ["text", "4-1"]],
        ],
      },
    },
  ],
  edges: [
    ["1", 0, "4"],
    ["4", 0, "4-1"],
    ["4-1", 0, "9"],
  ],
};

const codes = (r: ReturnType<typeof compactToWorkflow>, severity: string) =>
  r.diagnostics.filter((d) => d.severity === severity).map((d) => d.code);

describe("Chat2Workflow's converter rules under upstream fidelity", () => {
  it("writes an unknown start type as given, with a warning; Weft's converter refuses it", () => {
    const weft = compactToWorkflow(imageStart, { name: "t" });
    expect(codes(weft, "error")).toEqual(["compact.bad_start_type"]);
    const up = compactToWorkflow(imageStart, { name: "t", upstreamConverter: true });
    expect(codes(up, "error")).toEqual([]);
    expect(codes(up, "warning")).toEqual(["compact.unknown_start_type"]);
    const vars = up.workflow!.nodes.find((n) => n.type === "start")!.config.variables;
    expect(vars).toEqual([
      { variable: "photo", label: "photo", type: "image", required: false, max_length: 32768 },
      { variable: "q", label: "q", type: "paragraph", required: false, max_length: 32768 },
    ]);
    // Exported as upstream writes it: Dify imports such a file; it refuses the type only when the app runs.
    expect(exportDify(up.workflow!)).toContain("type: image");
  });

  it("keeps an X-n node under a non-container at the top level, with a warning", () => {
    expect(codes(compactToWorkflow(childOfLlm, { name: "t" }), "error")).toEqual(["compact.bad_child"]);
    const up = compactToWorkflow(childOfLlm, { name: "t", upstreamConverter: true });
    expect(codes(up, "error")).toEqual([]);
    expect(up.diagnostics).toContainEqual(
      expect.objectContaining({ code: "compact.child_of_non_container", severity: "warning", nodeId: "4_1" }),
    );
    const child = up.workflow!.nodes.find((n) => n.id === "4_1")!;
    expect(child.parentId).toBeUndefined();
    expect(analyse(up.workflow!, nodeCatalogue).diagnostics.filter((d) => d.severity === "error")).toEqual([]);
  });

  it("still refuses a child whose parent is not defined before it (upstream's converter raises there)", () => {
    const later = {
      ...childOfLlm,
      nodes_info: [
        childOfLlm.nodes_info[0],
        childOfLlm.nodes_info[2],
        childOfLlm.nodes_info[1],
        childOfLlm.nodes_info[3],
      ],
    };
    const up = compactToWorkflow(later, { name: "t", upstreamConverter: true });
    expect(codes(up, "error")).toContain("compact.bad_child");
  });
});

describe("a start input of a type no start node has", () => {
  const photo = { variable: "photo", type: "image", required: false };

  it("is an analyser error naming the input and the types there are", () => {
    const up = compactToWorkflow(imageStart, { name: "t", upstreamConverter: true });
    const d = analyse(up.workflow!, nodeCatalogue).diagnostics.find((x) => x.code === "start.unknown_type");
    expect(d).toMatchObject({ severity: "error", nodeId: "1", field: "variables[0].type" });
    expect(d!.message).toContain('"photo" has type "image"');
  });

  it("is refused when the run starts, with a typed error", () => {
    let err: unknown;
    try {
      resolveStartInputs("1", [photo], { photo: { transfer_method: "local_file" } });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(NodeExecutionError);
    expect(err).toMatchObject({ code: "input.unknown_type", nodeId: "1" });
  });

  it("leaves every type Dify's start node has, and the value types, alone", () => {
    const types = [
      "text-input",
      "paragraph",
      "select",
      "number",
      "checkbox",
      "json_object",
      "file",
      "file-list",
      "external_data_tool",
      "string",
      "array[string]",
      "any",
    ];
    const vars = types.map((type, i) => ({ variable: `v${i}`, type, required: false }));
    expect(() => resolveStartInputs("1", vars, {})).not.toThrow();
  });
});
