import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compactToWorkflow, variableSummary, workflowToCompact } from "../../src/dsl/compact/index.js";
import { corpusPath } from "../support/corpus.js";

const corpus = corpusPath("chat2workflow/model-outputs");

const sample = {
  nodes_info: [
    {
      id: "1",
      type: "start",
      param: {
        variables: [
          ["docs", "array[file]"],
          ["topic", "string"],
        ],
      },
    },
    { id: "2", type: "iteration", param: { iterator_selector: ["docs", "1"], output_selector: ["text", "2-3"] } },
    { id: "2-1", type: "iteration-start", param: {} },
    { id: "2-2", type: "document-extractor", param: { variable_selector: ["item", "2"] } },
    { id: "2-3", type: "llm", param: { system: "Summarise.", user: "Topic {{#'1'.topic#}}: {{#'2-2'.text#}}" } },
    { id: "3", type: "if-else", param: { cases: [[null, [[["topic", "1"], "contains", "urgent"]]]] } },
    { id: "4", type: "template-transform", param: { variables: [["s", ["output", "2"]]], template: "URGENT {{ s }}" } },
    { id: "5", type: "template-transform", param: { variables: [["s", ["output", "2"]]], template: "{{ s }}" } },
    {
      id: "6",
      type: "variable-aggregator",
      param: {
        variables: [
          ["output", "4"],
          ["output", "5"],
        ],
      },
    },
    { id: "7", type: "markdown-exporter", param: { target_type: "pdf", md_text: '{{#"6".output#}}' } },
    {
      id: "8",
      type: "end",
      param: {
        outputs: [
          ["report", ["output", "6"]],
          ["pdf", ["files", "7"]],
        ],
      },
    },
  ],
  edges: [
    ["1", 0, "2"],
    ["2-1", 0, "2-2"],
    ["2-2", 0, "2-3"],
    ["2", 0, "3"],
    ["3", 0, "4"],
    ["3", 1, "5"],
    ["4", 0, "6"],
    ["5", 0, "6"],
    ["6", 0, "7"],
    ["7", 0, "8"],
  ],
};

describe("compact JSON → IR", () => {
  it("converts references, containers, ports and tool aliases", () => {
    const { workflow, diagnostics } = compactToWorkflow(sample, { name: "t" });
    expect(diagnostics).toEqual([]);
    const wf = workflow!;
    const byId = Object.fromEntries(wf.nodes.map((n) => [n.id, n]));
    expect(byId["2_2"]!.parentId).toBe("2");
    expect(byId["2"]!.config.start_node_id).toBe("2_1");
    expect(byId["2"]!.config.output_selector).toEqual(["2_3", "text"]);
    expect(byId["2"]!.config.iterator_selector).toEqual(["1", "docs"]);
    expect((byId["2_3"]!.config.prompt_template as Array<{ text: string }>)[1]!.text).toBe(
      "Topic {{#1.topic#}}: {{#2_2.text#}}",
    );
    expect(byId["6"]!.config.variables).toEqual([
      ["4", "output"],
      ["5", "output"],
    ]);
    expect(byId["7"]!.type).toBe("tool");
    expect(byId["7"]!.config.tool_name).toBe("md_to_pdf");
    expect(wf.edges.filter((e) => e.source === "3").map((e) => e.sourcePort)).toEqual(["true", "false"]);
    expect(wf.mode).toBe("workflow");
  });

  it("reports errors with node and field instead of guessing", () => {
    const bad = {
      nodes_info: [
        { id: "1", type: "start", param: { variables: [["q", "string"]] } },
        { id: "2", type: "template", param: {} },
        { id: "3", type: "llm", param: { system: "s", user: "{{#'9'.text#}}" } },
        { id: "4", type: "end", param: { outputs: [["out", "text"]] } },
      ],
      edges: [
        ["1", 0, "3"],
        ["3", 0, "4"],
        ["3", 0],
      ],
    };
    const { diagnostics } = compactToWorkflow(bad);
    const codes = diagnostics.map((d) => `${d.code}@${d.nodeId ?? ""}`);
    expect(codes).toContain("compact.unknown_type@2");
    expect(codes).toContain("compact.unknown_node_ref@3");
    expect(codes).toContain("compact.bad_reference@4");
    expect(codes).toContain("compact.bad_edge@");
    expect(compactToWorkflow("nope").diagnostics[0]!.code).toBe("compact.not_object");
    expect(compactToWorkflow({ nodes_info: [] }).diagnostics[0]!.code).toBe("compact.no_nodes");
  });

  it("IR → compact → IR is stable", () => {
    const first = compactToWorkflow(sample).workflow!;
    const back = workflowToCompact(first);
    const again = compactToWorkflow(back).workflow!;
    const strip = (w: typeof first) => ({ nodes: w.nodes.map(({ title, ...n }) => n), edges: w.edges });
    expect(strip(again)).toEqual(strip(first));
  });

  it("summarises variables for the next chat turn", () => {
    const s = variableSummary(compactToWorkflow(sample).workflow!);
    expect(s.inputs).toEqual([
      { name: "docs", type: "array[file]" },
      { name: "topic", type: "string" },
    ]);
    expect(s.outputs.map((o) => o.name)).toEqual(["report", "pdf"]);
    expect(s.nodes.find((n) => n.id === "2")!.outputs).toEqual([{ name: "output", type: "array[string]" }]);
  });

  it("never throws on any recorded model answer", () => {
    let parsed = 0;
    let converted = 0;
    for (const f of readdirSync(corpus)) {
      for (const rec of JSON.parse(readFileSync(join(corpus, f), "utf8")) as Array<{ workflow: unknown }>) {
        let json: unknown = rec.workflow;
        if (typeof json === "string") {
          try {
            json = JSON.parse(json);
          } catch {
            continue;
          }
        }
        parsed++;
        const r = compactToWorkflow(json);
        if (r.workflow && r.diagnostics.length === 0) converted++;
      }
    }
    expect(parsed).toBeGreaterThan(400);
    expect(converted).toBeGreaterThan(parsed * 0.5);
  });
});
