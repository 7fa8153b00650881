import { describe, expect, it } from "vitest";
import {
  CURRENT_DSL_VERSION,
  exportDify,
  firstDifference,
  importDify,
  readYaml,
  toDifyDocument,
  writeYaml,
} from "../../src/dsl/dify/index.js";
import { SchemaError, WeftError } from "../../src/ir/errors.js";
import type { Workflow } from "../../src/ir/workflow.js";

type J = Record<string, unknown>;
const rec = (v: unknown): J => v as J;

const SAMPLE = `app:
  description: demo
  icon: 🤖
  icon_background: '#FFEAD5'
  mode: advanced-chat
  name: 样例
  use_icon_as_answer_icon: false
  future_flag: 1
dependencies:
- current_identifier: null
  type: marketplace
  value:
    marketplace_plugin_unique_identifier: langgenius/openai:0.0.22@abc
kind: app
version: 0.3.1
x_top: keep me
workflow:
  conversation_variables:
  - {id: c1, name: count, value_type: number, value: 0, description: '', selector: [conversation, count]}
  environment_variables:
  - {id: e1, name: KEY, value_type: secret, value: '', description: ''}
  features:
    opening_statement: hi
  rag_pipeline_variables: []
  x_workflow: 2
  graph:
    x_graph: 3
    viewport: {x: 1, y: 2, zoom: 0.5}
    nodes:
    - id: '1'
      type: custom
      position: {x: 0, y: 0}
      positionAbsolute: {x: 0, y: 0}
      width: 244
      height: 90
      selected: true
      data: {type: start, title: 开始, variables: [], desc: '', unknown_field: [1, 2]}
    - id: '2'
      type: custom
      position: {x: 300, y: 0}
      data:
        type: if-else
        title: Branch
        cases:
        - case_id: 'true'
          logical_operator: and
          conditions:
          - {variable_selector: [sys, query], comparison_operator: '=', value: 'y'}
    - id: '3'
      type: custom
      position: {x: 600, y: 0}
      zIndex: 1
      width: 600
      height: 300
      data: {type: iteration, title: Loop over, start_node_id: 3start, iterator_selector: ['1', items], output_selector: ['3a', text]}
    - id: 3start
      type: custom-iteration-start
      parentId: '3'
      draggable: false
      selectable: false
      extent: parent
      zIndex: 1002
      position: {x: 24, y: 68}
      data: {type: iteration-start, title: '', isInIteration: true}
    - id: 3a
      type: custom
      parentId: '3'
      position: {x: 120, y: 68}
      data: {type: llm, title: Inner, isInIteration: true, iteration_id: '3'}
    - id: note1
      type: custom-note
      position: {x: 5, y: 5}
      data: {type: '', title: '', text: 'a note', theme: blue, author: me}
    - id: '4'
      type: custom
      position: {x: 1300, y: 0}
      data: {type: answer, title: Out, answer: '{{#3.output#}}'}
    edges:
    - {id: e12, source: '1', sourceHandle: source, target: '2', targetHandle: target, type: custom, zIndex: 0, selected: false, data: {sourceType: start, targetType: if-else, isInIteration: false}}
    - {id: e23, source: '2', sourceHandle: 'true', target: '3', targetHandle: target, type: custom, data: {sourceType: if-else, targetType: iteration}}
    - {source: '2', sourceHandle: 'false', target: '4'}
    - {source: 3start, target: 3a}
    - {id: e34, source: '3', target: '4'}
`;

describe("importDify mapping", () => {
  const { workflow: wf, warnings } = importDify(SAMPLE);
  const node = (id: string) => wf.nodes.find((n) => n.id === id);

  it("reads the app block into name, description and mode", () => {
    expect(wf.name).toBe("样例");
    expect(wf.description).toBe("demo");
    expect(wf.mode).toBe("advanced-chat");
    expect(warnings.map((w) => w.code)).toEqual(["dsl.version_older"]);
  });

  it("keeps node data minus type/title as config, unknown fields included", () => {
    expect(node("1")).toMatchObject({
      type: "start",
      title: "开始",
      config: { variables: [], desc: "", unknown_field: [1, 2] },
    });
    expect(node("1")?.config).not.toHaveProperty("type");
    expect(node("1")?.config).not.toHaveProperty("title");
  });

  it("moves canvas-only keys into canvas and parentId onto the node", () => {
    expect(node("1")?.canvas).toEqual({
      type: "custom",
      position: { x: 0, y: 0 },
      positionAbsolute: { x: 0, y: 0 },
      width: 244,
      height: 90,
      selected: true,
    });
    expect(node("3start")).toMatchObject({ parentId: "3", type: "iteration-start" });
    expect(node("3start")?.canvas).toMatchObject({
      type: "custom-iteration-start",
      draggable: false,
      extent: "parent",
    });
    expect(node("3start")?.canvas).not.toHaveProperty("parentId");
  });

  it("marks container children as Dify does when the file did not", () => {
    // 3start had isInIteration but no iteration_id; both are now present, and nothing else changed.
    expect(node("3start")?.config).toEqual({ isInIteration: true, iteration_id: "3" });
    expect(node("3a")?.canvas).toMatchObject({ extent: "parent", zIndex: 1002 });
  });

  it("maps edges: sourceHandle to sourcePort (default source), the rest to canvas", () => {
    const e = wf.edges;
    expect(e[0]).toEqual({
      id: "e12",
      source: "1",
      sourcePort: "source",
      target: "2",
      canvas: {
        targetHandle: "target",
        type: "custom",
        zIndex: 0,
        selected: false,
        data: { sourceType: "start", targetType: "if-else", isInIteration: false, isInLoop: false },
      },
    });
    expect(e[2]).toMatchObject({ id: "2-false-4-target", sourcePort: "false" });
    expect(e[3]).toMatchObject({
      id: "3start-source-3a-target",
      sourcePort: "source",
      canvas: {
        zIndex: 1002,
        data: { isInIteration: true, iteration_id: "3", sourceType: "iteration-start", targetType: "llm" },
      },
    });
  });

  it("keeps notes, variables, features and unknown keys for export", () => {
    const meta = rec(wf.meta?.dify);
    expect(meta.notes).toEqual([
      {
        id: "note1",
        type: "custom-note",
        position: { x: 5, y: 5 },
        data: { type: "", title: "", text: "a note", theme: "blue", author: "me" },
      },
    ]);
    expect(wf.nodes.some((n) => n.id === "note1")).toBe(false);
    expect(meta.version).toBe("0.3.1");
    expect(meta.app).toEqual({
      name: "样例",
      mode: "advanced-chat",
      description: "demo",
      icon: "🤖",
      icon_background: "#FFEAD5",
      use_icon_as_answer_icon: false,
      future_flag: 1,
    });
    expect(meta.viewport).toEqual({ x: 1, y: 2, zoom: 0.5 });
    expect(meta.extra).toEqual({ x_top: "keep me" });
    expect(meta.workflowExtra).toEqual({ x_workflow: 2 });
    expect(meta.graphExtra).toEqual({ x_graph: 3 });
    expect(meta.rag_pipeline_variables).toEqual([]);
    expect(meta.dependencies).toHaveLength(1);
    expect(wf.features).toEqual({ opening_statement: "hi" });
    expect(wf.environment_variables[0]).toMatchObject({ name: "KEY", value_type: "secret", value: "" });
    expect(wf.conversation_variables[0]).toMatchObject({ name: "count", selector: ["conversation", "count"] });
  });

  it("keeps YAML 1.1 values as PyYAML reads them", () => {
    const cond = rec((node("2")?.config.cases as J[] | undefined)?.[0]).conditions as J[];
    expect(cond[0]).toMatchObject({ comparison_operator: "=", value: "y" });
  });

  it("round-trips losslessly (but for the DSL version, now ours) and writes what Dify expects", () => {
    const yaml = exportDify(wf);
    const again = importDify(yaml);
    expect(again.workflow).toEqual({
      ...wf,
      meta: { ...wf.meta, dify: { ...rec(wf.meta?.dify), version: CURRENT_DSL_VERSION } },
    });
    expect(yaml).toContain('comparison_operator: "="');
    expect(yaml).toContain("name: 样例");
    // Written in today's form, so it says today's version: re-imported, it is not "older" (issue 36 item 7).
    expect(yaml).toMatch(new RegExp(`^version: ${CURRENT_DSL_VERSION.replaceAll(".", "\\.")}$`, "m"));
    expect(again.warnings.map((w) => w.code)).not.toContain("dsl.version_older");
    const doc = rec((readYaml(yaml) as { value: unknown }).value);
    const nodes = rec(rec(doc.workflow).graph).nodes as J[];
    expect(nodes.find((n) => n.id === "note1")).toMatchObject({ type: "custom-note" });
    expect(nodes.find((n) => n.id === "3a")).toMatchObject({ parentId: "3", data: { type: "llm", title: "Inner" } });
    expect(doc.x_top).toBe("keep me");
    expect(rec(doc.workflow).x_workflow).toBe(2);
  });

  it("blanks a secret's value on export, and adds no value key to a secret that had none", () => {
    const env = [
      { id: "s1", name: "TOKEN", value_type: "secret", value: "sk-live", description: "" },
      { id: "s2", name: "BARE", value_type: "secret", description: "" },
    ];
    const own = { ...wf, environment_variables: env } as typeof wf;
    const written = rec(rec(rec((readYaml(exportDify(own)) as { value: unknown }).value).workflow));
    expect(written.environment_variables).toEqual([
      { id: "s1", name: "TOKEN", value_type: "secret", value: "", description: "" },
      { id: "s2", name: "BARE", value_type: "secret", description: "" },
    ]);
    // What the fuzz test found once in thousands of cases: such a secret came back with value "" after a round trip.
    const bare = { ...wf, environment_variables: [env[1]] } as typeof wf;
    const once = importDify(exportDify(bare)).workflow;
    expect(importDify(exportDify(once)).workflow.environment_variables).toEqual(once.environment_variables);
    expect(once.environment_variables).toEqual([env[1]]);
  });

  it("exports a renamed workflow under its new name", () => {
    const yaml = exportDify({ ...wf, name: "renamed", description: "new" });
    const doc = rec((readYaml(yaml) as { value: unknown }).value);
    expect(doc.app).toMatchObject({ name: "renamed", description: "new", mode: "advanced-chat", icon: "🤖" });
  });
});

function freshWorkflow(): Workflow {
  return {
    weft: 1,
    name: "fresh",
    description: "",
    mode: "workflow",
    nodes: [
      { id: "1", type: "start", title: "Start", config: { variables: [] } },
      {
        id: "2",
        type: "if-else",
        title: "Check",
        config: { cases: [{ case_id: "c1", conditions: [], logical_operator: "and" }] },
      },
      {
        id: "3",
        type: "iteration",
        title: "Each",
        config: { start_node_id: "3start", iterator_selector: ["1", "xs"] },
      },
      { id: "3start", type: "iteration-start", title: "", parentId: "3", config: {} },
      { id: "3a", type: "code", title: "Work", parentId: "3", config: { code: "def main(): return {}" } },
      { id: "4", type: "loop", title: "Again", config: { start_node_id: "4start", loop_count: 3 } },
      { id: "4start", type: "loop-start", title: "", parentId: "4", config: {} },
      { id: "5", type: "end", title: "End", config: { outputs: [] } },
    ],
    edges: [
      { source: "1", sourcePort: "source", target: "2" },
      { source: "2", sourcePort: "c1", target: "3" },
      { source: "2", sourcePort: "false", target: "4" },
      { source: "3start", sourcePort: "source", target: "3a" },
      { source: "3", sourcePort: "source", target: "5" },
      { source: "4", sourcePort: "source", target: "5" },
    ],
    environment_variables: [],
    conversation_variables: [],
  };
}

describe("exportDify for a new workflow", () => {
  const wf = freshWorkflow();
  const yaml = exportDify(wf);
  const doc = rec((readYaml(yaml) as { value: unknown }).value);
  const graph = rec(rec(doc.workflow).graph);
  const nodes = graph.nodes as J[];
  const edges = graph.edges as J[];
  const byId = (id: string): J => nodes.find((n) => n.id === id) as J;

  it("writes kind, the current version as a string, an app block and full features", () => {
    expect(doc.kind).toBe("app");
    // Our own output is current: re-importing it never warns dsl.version_older.
    expect(doc.version).toBe(CURRENT_DSL_VERSION);
    expect(importDify(yaml).warnings.map((w) => w.code)).not.toContain("dsl.version_older");
    expect(doc.app).toMatchObject({ name: "fresh", mode: "workflow", icon_type: "emoji" });
    const features = rec(rec(doc.workflow).features);
    for (const k of [
      "file_upload",
      "opening_statement",
      "retriever_resource",
      "sensitive_word_avoidance",
      "speech_to_text",
      "suggested_questions",
      "suggested_questions_after_answer",
      "text_to_speech",
    ]) {
      expect(features).toHaveProperty(k);
    }
    expect(graph.viewport).toEqual({ x: 0, y: 0, zoom: 1 });
  });

  it("gives nodes canvas types, data and positions", () => {
    expect(byId("1")).toMatchObject({ type: "custom", data: { type: "start", title: "Start", variables: [] } });
    expect(byId("3start").type).toBe("custom-iteration-start");
    expect(byId("4start").type).toBe("custom-loop-start");
    for (const n of nodes) expect(n.position).toEqual({ x: expect.any(Number), y: expect.any(Number) });
    // Layered by depth: each step of the chain is further right.
    const x = (id: string): number => rec(byId(id).position).x as number;
    expect(x("1")).toBeLessThan(x("2"));
    expect(x("2")).toBeLessThan(x("3"));
    expect(x("3")).toBeLessThan(x("5"));
    expect(x("3")).toBe(x("4"));
    expect(rec(byId("3").position).y).not.toBe(rec(byId("4").position).y);
  });

  it("marks container children and lays them out relative to the parent", () => {
    expect(byId("3a")).toMatchObject({
      parentId: "3",
      extent: "parent",
      zIndex: 1002,
      data: { isInIteration: true, iteration_id: "3" },
    });
    expect(byId("3start")).toMatchObject({
      draggable: false,
      selectable: false,
      data: { isInIteration: true, iteration_id: "3" },
    });
    expect(byId("4start")).toMatchObject({ parentId: "4", data: { isInLoop: true, loop_id: "4" } });
    expect(byId("3start").position).toEqual({ x: 24, y: 68 });
    const parent = rec(byId("3").position);
    const child = rec(byId("3a").position);
    expect(byId("3a").positionAbsolute).toEqual({
      x: (parent.x as number) + (child.x as number),
      y: (parent.y as number) + (child.y as number),
    });
    // The container is sized to hold its children.
    expect(byId("3").width as number).toBeGreaterThanOrEqual((child.x as number) + 244);
  });

  it("writes Dify edge ids, handles and data", () => {
    expect(edges[1]).toEqual({
      id: "2-c1-3-target",
      source: "2",
      sourceHandle: "c1",
      target: "3",
      targetHandle: "target",
      type: "custom",
      zIndex: 0,
      data: { sourceType: "if-else", targetType: "iteration", isInIteration: false, isInLoop: false },
    });
    expect(edges[3]).toMatchObject({
      id: "3start-source-3a-target",
      zIndex: 1002,
      data: { isInIteration: true, iteration_id: "3", isInLoop: false },
    });
  });

  it("is stable: import → export gives the same text", () => {
    const again = importDify(yaml).workflow;
    expect(exportDify(again)).toBe(yaml);
    expect(importDify(exportDify(again)).workflow).toEqual(again);
  });

  it("does not change the workflow it exports", () => {
    const w = freshWorkflow();
    const before = structuredClone(w);
    exportDify(w);
    expect(w).toEqual(before);
  });

  it("keeps positions that exist and places the rest below them", () => {
    const w = freshWorkflow();
    w.nodes[0] = { ...w.nodes[0]!, canvas: { position: { x: 1000, y: 1000 }, height: 50 } };
    const d = toDifyDocument(w);
    const ns = rec(rec(d.workflow).graph).nodes as J[];
    expect(ns[0]?.position).toEqual({ x: 1000, y: 1000 });
    for (const n of ns.slice(1).filter((n) => n.parentId === undefined))
      expect(rec(n.position).y).toBeGreaterThan(1050);
  });

  it("writes the current version for new workflows (whatever their node types), and honours an explicit one", () => {
    const w = freshWorkflow();
    w.nodes.push({ id: "9", type: "trigger-schedule", title: "T", config: {} });
    expect(rec((readYaml(exportDify(w)) as { value: unknown }).value).version).toBe(CURRENT_DSL_VERSION);
    expect(rec((readYaml(exportDify(w, { version: "0.4.0" })) as { value: unknown }).value).version).toBe("0.4.0");
    expect(() => exportDify(w, { version: "latest" })).toThrow(WeftError);
  });

  it("refuses a workflow that breaks the schema, naming the path", () => {
    const bad = { ...freshWorkflow(), nodes: [{ id: "", type: "start", title: "", config: {} }] } as Workflow;
    try {
      exportDify(bad);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(SchemaError);
      expect((e as SchemaError).message).toContain("nodes.0.id");
    }
  });
});

describe("Dify YAML dialect", () => {
  it("reads scalars as PyYAML's safe_load does", () => {
    const r = readYaml(
      "a: y\nb: yes\nc: 1e5\nd: 1.0e+5\ne: 09\nf: 017\ng: 0x1F\nh: 1:20\ni: 2024-01-02\nj: .inf\nk: ~\nl: Off\nm: 1_000\n",
    );
    expect(r.ok && r.value).toEqual({
      a: "y",
      b: true,
      c: "1e5",
      d: 100000,
      e: "09",
      f: 15,
      g: 31,
      h: 80,
      i: "2024-01-02",
      j: Number.POSITIVE_INFINITY,
      k: null,
      l: false,
      m: 1000,
    });
  });

  it("quotes strings PyYAML would read as other types, and numbers it would read as strings are written as floats", () => {
    const y = writeYaml({
      a: "yes",
      b: "=",
      c: "2024-01-02",
      d: "0.4",
      e: "<<",
      f: "null",
      g: 1e21,
      h: 1e-7,
      i: "y",
      j: "中文",
    });
    expect(y).toContain('a: "yes"');
    expect(y).toContain('b: "="');
    expect(y).toContain('c: "2024-01-02"');
    expect(y).toContain('d: "0.4"');
    expect(y).toContain('e: "<<"');
    expect(y).toContain('f: "null"');
    expect(y).toContain("g: 1.0e+21");
    expect(y).toContain("h: 1.0e-7");
    expect(y).toContain("i: y");
    expect(y).toContain("j: 中文");
    expect(readYaml(y).ok && (readYaml(y) as { value: unknown }).value).toEqual({
      a: "yes",
      b: "=",
      c: "2024-01-02",
      d: "0.4",
      e: "<<",
      f: "null",
      g: 1e21,
      h: 1e-7,
      i: "y",
      j: "中文",
    });
  });

  it("escapes characters PyYAML refuses or reads as line breaks", () => {
    const v = { a: "x\x7f\x80\x85y", b: "p\uFFFEq", c: "\u2028z", "k\x85": "multi\nline\x80", d: "a\u00a0b 🤖" };
    const y = writeYaml(v);
    expect(y).not.toMatch(/[\x7f-\x9f\u2028\u2029\uFFFE\uFFFF]/);
    expect(y).toContain("d: a\u00a0b 🤖");
    const back = readYaml(y);
    expect(back.ok && back.value).toEqual(v);
  });

  it("writes keys sorted like Dify's exporter", () => {
    expect(writeYaml({ b: 1, a: { d: 1, c: 2 } })).toBe("a:\n  c: 2\n  d: 1\nb: 1\n");
  });

  it("keeps multi-line strings with leading spaces intact", () => {
    const s = " ## Role: \n律师\n \n## Profile:\n- x  ";
    const back = readYaml(writeYaml({ s }));
    expect(back.ok && (back.value as J).s).toBe(s);
  });

  it("refuses alias bombs and recursive aliases, and keeps ordinary reuse", () => {
    const levels = ["a: &a [x, x, x, x, x, x, x, x, x, x]"];
    for (let i = 1; i < 8; i++) {
      const prev = String.fromCharCode(96 + i);
      const next = String.fromCharCode(97 + i);
      levels.push(`${next}: &${next} [${Array(10).fill(`*${prev}`).join(", ")}]`);
    }
    const bomb = readYaml(`${levels.join("\n")}\n`);
    expect(bomb.ok).toBe(false);
    expect(!bomb.ok && bomb.error.message).toMatch(/alias bomb/);

    const loop = readYaml("a: &a [1, *a]\n");
    expect(!loop.ok && loop.error.message).toMatch(/recursive/);

    const reuse = readYaml("base: &b {model: gpt, t: 0.2}\none: *b\ntwo: {<<: *b, t: 0.9}\n");
    expect(reuse.ok && reuse.value).toEqual({
      base: { model: "gpt", t: 0.2 },
      one: { model: "gpt", t: 0.2 },
      two: { model: "gpt", t: 0.9 },
    });
  });

  it("refuses documents nested past any workflow's depth, with the place", () => {
    const deep = readYaml(`${"[".repeat(5000)}${"]".repeat(5000)}\n`);
    expect(deep.ok).toBe(false);
    expect(!deep.ok && deep.error).toMatchObject({ line: 1, message: expect.stringMatching(/nesting|deep/) });
  });

  it("does not let a __proto__ key change the prototype", () => {
    const r = readYaml("__proto__: {polluted: true}\n");
    expect(r.ok).toBe(true);
    const v = (r as { value: J }).value;
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
    expect(({} as J).polluted).toBeUndefined();
  });
});

describe("export of a hostile node type", () => {
  // Found by test/dsl/fuzz.test.ts (seed 265359434): the export's version lookup read Object.prototype for this type.
  it("a node typed __proto__ exports at the default DSL version and imports again", () => {
    const text = `app: {name: t, mode: workflow}
version: '0.4.0'
kind: app
workflow:
  graph:
    nodes:
      - id: s
        data: {type: start, title: Start, variables: []}
      - id: p
        data: {type: __proto__, title: Odd}
    edges:
      - {source: s, target: p}
`;
    const first = importDify(text);
    const out = exportDify(first.workflow);
    expect(out).toMatch(/^version: 0\.6\.0$/m);
    expect(importDify(out).workflow.nodes.map((n) => n.type)).toEqual(["start", "__proto__"]);
  });
});

describe("firstDifference", () => {
  it("names the first differing path, ignoring key order", () => {
    expect(firstDifference({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 })).toBeUndefined();
    expect(firstDifference({ a: [1, { c: 2 }] }, { a: [1, { c: 3 }] })).toBe("a[1].c: 2 ≠ 3");
    expect(firstDifference({ a: 1 }, { a: 1, b: undefined })).toBe("b: only in the second");
    expect(firstDifference(Number.NaN, Number.NaN)).toBeUndefined();
  });
});

describe("layout of nodes added to an imported container", () => {
  it("places a new child inside the body and grows the container to hold it", () => {
    const text = `app: {name: t, mode: workflow}
version: '0.4.0'
workflow:
  graph:
    nodes:
    - id: '1'
      type: custom
      position: {x: 0, y: 0}
      data: {type: iteration, title: It, width: 400, height: 160, start_node_id: 1start}
      width: 400
      height: 160
    - id: 1start
      type: custom-iteration-start
      parentId: '1'
      position: {x: 24, y: 68}
      data: {type: iteration-start, title: ''}
    edges: []
`;
    const wf = importDify(text).workflow;
    wf.nodes.push({ id: "1a", type: "code", title: "New", parentId: "1", config: {} });
    wf.edges.push({ source: "1start", sourcePort: "source", target: "1a" });
    const doc = rec((readYaml(exportDify(wf)) as { value: unknown }).value);
    const nodes = rec(rec(doc.workflow).graph).nodes as J[];
    const child = nodes.find((n) => n.id === "1a") as J;
    const parent = nodes.find((n) => n.id === "1") as J;
    expect(child).toMatchObject({ parentId: "1", extent: "parent", data: { iteration_id: "1", isInIteration: true } });
    const pos = rec(child.position);
    expect(pos.y as number).toBeGreaterThan(68);
    expect(parent.height as number).toBeGreaterThanOrEqual((pos.y as number) + 90);
    expect(rec(parent.data).height).toBe(parent.height);
    // Once laid out, another round trip changes nothing.
    const again = importDify(exportDify(wf)).workflow;
    expect(importDify(exportDify(again)).workflow).toEqual(again);
  });
});
