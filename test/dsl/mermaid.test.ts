import { parseMermaid, renderMermaidSVG } from "beautiful-mermaid";
import { describe, expect, it } from "vitest";
import { importDify } from "../../src/dsl/dify/index.js";
import { escapeMermaidLabel, portLabel, toMermaid } from "../../src/dsl/mermaid/index.js";
import type { Workflow } from "../../src/ir/workflow.js";
import { corpusFiles, readCorpus } from "./corpus.js";

function wf(): Workflow {
  return {
    weft: 1,
    name: "m",
    description: "",
    mode: "workflow",
    nodes: [
      { id: "1", type: "start", title: 'Say "hi" [now]', config: {} },
      {
        id: "2",
        type: "if-else",
        title: "Branch {x} | y",
        config: { cases: [{ case_id: "true" }, { case_id: "b7-uuid" }] },
      },
      { id: "3", type: "http-request", title: "Call", config: { error_strategy: "fail-branch" } },
      { id: "4", type: "iteration", title: "Each", config: {} },
      { id: "4start", type: "iteration-start", title: "", parentId: "4", config: {} },
      { id: "4a", type: "llm", title: "<b>Inner</b>", parentId: "4", config: {} },
      {
        id: "5",
        type: "question-classifier",
        title: "Classify",
        config: {
          classes: [
            { id: "c1", name: "Sales" },
            { id: "c2", name: "" },
          ],
        },
      },
      { id: "6", type: "end", title: "End", config: {} },
    ],
    edges: [
      { source: "1", sourcePort: "source", target: "2" },
      { source: "2", sourcePort: "true", target: "3" },
      { source: "2", sourcePort: "b7-uuid", target: "4" },
      { source: "2", sourcePort: "false", target: "5" },
      { source: "3", sourcePort: "fail-branch", target: "6" },
      { source: "3", sourcePort: "source", target: "6" },
      { source: "4start", sourcePort: "source", target: "4a" },
      { source: "5", sourcePort: "c1", target: "6" },
      { source: "5", sourcePort: "c2", target: "6" },
      { source: "4", sourcePort: "source", target: "ghost" },
    ],
    environment_variables: [],
    conversation_variables: [],
  };
}

describe("toMermaid", () => {
  const text = toMermaid(wf());

  it("writes an LR flowchart with title and type labels, escaped", () => {
    expect(text.startsWith("flowchart LR\n")).toBe(true);
    expect(text).toContain('n0(["Say #quot;hi#quot; #91;now#93; · start"])');
    expect(text).toContain('n1{"Branch #123;x#125; #124; y · if-else"}');
    expect(text).toContain('n5["#lt;b#gt;Inner#lt;/b#gt; · llm"]');
    expect(text).toContain('n4(("iteration-start"))');
  });

  it("labels ports: case N, else, fail-branch, class names", () => {
    expect(text).toContain('n1 -->|"case 1"| n2');
    expect(text).toContain('n1 -->|"case 2"| n3');
    expect(text).toContain('n1 -->|"else"| n6');
    expect(text).toContain('n2 -.->|"fail-branch"| n7');
    expect(text).toContain("n2 --> n7");
    expect(text).toContain('n6 -->|"Sales"| n7');
    expect(text).toContain('n6 -->|"class 2"| n7');
    expect(text).toContain("%% edge 4 -> ghost names a missing node");
  });

  it("draws containers as subgraphs holding their children", () => {
    const lines = text.split("\n");
    const start = lines.findIndex((l) => l.includes('subgraph n3["Each · iteration"]'));
    const end = lines.findIndex((l, i) => i > start && l.trim() === "end");
    expect(start).toBeGreaterThan(0);
    const body = lines.slice(start, end).join("\n");
    expect(body).toContain("n4((");
    expect(body).toContain("n5[");
  });

  it("is valid Mermaid for a renderer", () => {
    const g = parseMermaid(text);
    expect(g.nodes.size).toBeGreaterThanOrEqual(7);
    expect(g.subgraphs).toHaveLength(1);
    expect(renderMermaidSVG(text)).toContain("<svg");
  });

  it("can run top to bottom", () => {
    const tb = toMermaid(wf(), { direction: "TB" });
    expect(tb.startsWith("flowchart TB\n")).toBe(true);
    expect(tb).toContain("direction TB");
  });

  it("names ports for legacy if-else without cases", () => {
    const n = { id: "x", type: "if-else", title: "", config: {} };
    expect(portLabel(n, "true")).toBe("case 1");
    expect(portLabel(n, "false")).toBe("else");
    expect(portLabel(n, "source")).toBeUndefined();
    expect(escapeMermaidLabel("a\n  b#")).toBe("a b#35;");
  });

  it("renders every corpus workflow to parseable Mermaid", () => {
    let n = 0;
    for (const f of corpusFiles()) {
      const m = toMermaid(importDify(readCorpus(f)).workflow);
      const g = parseMermaid(m);
      expect(g.nodes.size).toBeGreaterThan(0);
      n++;
    }
    expect(n).toBeGreaterThanOrEqual(163);
  });
});
