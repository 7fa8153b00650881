import { describe, expect, it } from "vitest";
import { importDify, MAX_DSL_BYTES } from "../../src/dsl/dify/index.js";
import { ImportError } from "../../src/ir/errors.js";

const GRAPH = `  graph:
    nodes:
    - id: '1'
      data: {type: start, title: Start, variables: []}
    - id: '2'
      data: {type: end, title: End, outputs: []}
    edges:
    - {source: '1', target: '2'}
`;
const doc = (head: string, workflow = `workflow:\n${GRAPH}`): string => `${head}\n${workflow}`;
const APP = "app: {name: t, mode: workflow}";

const rec = (v: unknown): { dify: Record<string, unknown> } => v as { dify: Record<string, unknown> };

function importError(text: string): ImportError {
  try {
    importDify(text);
  } catch (e) {
    expect(e).toBeInstanceOf(ImportError);
    return e as ImportError;
  }
  throw new Error("expected an ImportError");
}

describe("importDify errors", () => {
  it("rejects text that is not YAML, with line and column", () => {
    const e = importError("app:\n  name: [unclosed\n  mode: workflow\nversion: '0.4.0'\n");
    expect(e.code).toBe("dsl.not_yaml");
    expect(e.message).toMatch(/line \d+, column \d+/);
    // Said once: the yaml library's own "at line N, column M:" tail is not repeated after ours.
    expect(e.message.match(/line \d+, column \d+/g)).toHaveLength(1);
    expect(e.message).not.toMatch(/:\s*$/);
    expect(e.details.line).toBeTypeOf("number");
    expect(e.details.col).toBeTypeOf("number");
  });

  it("rejects unresolved aliases as not YAML", () => {
    expect(importError(`${APP}\nversion: *nope\n`).code).toBe("dsl.not_yaml");
  });

  it("rejects documents that are not a mapping", () => {
    expect(importError("- a\n- b\n").code).toBe("dsl.not_mapping");
    expect(importError("just words").code).toBe("dsl.not_mapping");
    expect(importError("").message).toMatch(/empty/);
  });

  it("requires the app block and app.mode", () => {
    expect(importError(doc("version: '0.4.0'")).code).toBe("dsl.missing_app");
    expect(importError(doc("app: nope\nversion: '0.4.0'")).code).toBe("dsl.missing_app");
    expect(importError(doc("app: {name: t}\nversion: '0.4.0'")).code).toBe("dsl.missing_mode");
    expect(importError(doc("app: {name: t, mode: robot}\nversion: '0.4.0'")).code).toBe("dsl.bad_mode");
  });

  it.each(["chat", "agent-chat", "completion"])("says %s apps are not workflows", (mode) => {
    const e = importError(`app: {name: t, mode: ${mode}}\nversion: '0.4.0'\nmodel_config: {}\n`);
    expect(e.code).toBe("dsl.not_workflow_app");
    expect(e.message).toContain(`${mode} apps have no workflow graph`);
  });

  it("rejects a non-string version, as Dify does", () => {
    const e = importError(doc(`${APP}\nversion: 0.4`));
    expect(e.code).toBe("dsl.bad_version_type");
    expect(e.message).toMatch(/string/);
    expect(importError(doc(`${APP}\nversion: 1`)).code).toBe("dsl.bad_version_type");
    expect(importError(doc(`${APP}\nversion:`)).code).toBe("dsl.bad_version_type");
  });

  it("rejects an unparseable version and a newer major version", () => {
    expect(importError(doc(`${APP}\nversion: 'abc'`)).code).toBe("dsl.bad_version");
    expect(importError(doc(`${APP}\nversion: '1.0.0'`)).code).toBe("dsl.version_unsupported");
  });

  it("requires workflow.graph with node and edge lists", () => {
    expect(importError(`${APP}\nversion: '0.4.0'\n`).code).toBe("dsl.missing_workflow");
    expect(importError(doc(`${APP}\nversion: '0.4.0'`, "workflow: {features: {}}")).code).toBe("dsl.missing_graph");
    expect(importError(doc(`${APP}\nversion: '0.4.0'`, "workflow: {graph: {nodes: {a: 1}, edges: []}}")).code).toBe(
      "dsl.bad_nodes",
    );
    expect(importError(doc(`${APP}\nversion: '0.4.0'`, "workflow: {graph: {edges: []}}")).code).toBe("dsl.bad_nodes");
    expect(importError(doc(`${APP}\nversion: '0.4.0'`, "workflow: {graph: {nodes: [], edges: 3}}")).code).toBe(
      "dsl.bad_edges",
    );
  });

  it("requires node ids and data.type", () => {
    const wf = (nodes: string): string => `workflow:\n  graph:\n    edges: []\n    nodes:\n${nodes}`;
    const head = `${APP}\nversion: '0.4.0'`;
    const noId = importError(doc(head, wf("    - data: {type: start}\n")));
    expect(noId.code).toBe("dsl.node_missing_id");
    expect(noId.message).toContain("node #1");
    const noType = importError(doc(head, wf("    - id: 'a1'\n      data: {title: x}\n")));
    expect(noType.code).toBe("dsl.node_missing_type");
    expect(noType.message).toContain("a1");
    expect(noType.details.nodeId).toBe("a1");
    expect(importError(doc(head, wf("    - id: 'a1'\n")))).toMatchObject({ code: "dsl.node_missing_type" });
    expect(importError(doc(head, wf("    - 7\n")))).toMatchObject({ code: "dsl.bad_node" });
  });

  it("rejects malformed variable lists", () => {
    const head = `${APP}\nversion: '0.4.0'`;
    const bad = `workflow:\n  environment_variables: [{value: 1}]\n${GRAPH}`;
    const e = importError(doc(head, bad));
    expect(e.code).toBe("dsl.bad_variable");
    expect(e.message).toContain("environment_variables[0]");
    expect(importError(doc(head, `workflow:\n  conversation_variables: 5\n${GRAPH}`)).code).toBe("dsl.bad_variables");
  });

  it("checks the size before parsing", () => {
    // Not valid YAML either: the size check must come first.
    const big = `{${"x".repeat(MAX_DSL_BYTES)}`;
    const e = importError(big);
    expect(e.code).toBe("dsl.too_large");
    expect(e.message).toMatch(/10 MB/);
  });

  it("counts bytes, not characters, for the size limit", () => {
    const chars = Math.floor(MAX_DSL_BYTES / 3) + 10; // 3 bytes each in UTF-8
    expect(importError(`# ${"中".repeat(chars)}\n`).code).toBe("dsl.too_large");
  });
});

describe("importDify versions and warnings", () => {
  it("reads an absent version as 0.1.0 and warns that it is older", () => {
    const r = importDify(doc(APP));
    expect(rec(r.workflow.meta).dify.version).toBe("0.1.0");
    expect(r.warnings.map((w) => w.code)).toContain("dsl.version_older");
  });

  it("does not warn for the current minor version", () => {
    const r = importDify(doc(`${APP}\nversion: '0.6.0'`));
    expect(r.warnings.filter((w) => w.code.startsWith("dsl.version"))).toEqual([]);
  });

  it("warns but imports a newer minor version", () => {
    const r = importDify(doc(`${APP}\nversion: '0.7.0'`));
    expect(r.warnings.map((w) => w.code)).toContain("dsl.version_newer");
  });

  it("judges against the target server version when given", () => {
    const r = importDify(doc(`${APP}\nversion: '0.4.0'`), { currentVersion: "0.4.0" });
    expect(r.warnings.filter((w) => w.code.startsWith("dsl.version"))).toEqual([]);
    const older = importDify(doc(`${APP}\nversion: '0.3.1'`), { currentVersion: "0.4.0" });
    expect(older.warnings.map((w) => w.code)).toContain("dsl.version_older");
  });

  it("warns about and overwrites another kind", () => {
    const r = importDify(doc(`${APP}\nversion: '0.6.0'\nkind: thing`));
    expect(r.warnings.map((w) => w.code)).toContain("dsl.kind_overwritten");
    expect(rec(r.workflow.meta).dify.kind).toBe("app");
  });

  it("reads unquoted numeric ids and handles as text, with warnings", () => {
    const text = `${APP}\nversion: '0.6.0'\nworkflow:\n  graph:\n    nodes:\n    - id: 17\n      data: {type: start, title: S}\n    - id: 18\n      data: {type: if-else, title: I, cases: []}\n    - id: 19\n      data: {type: end, title: E}\n    edges:\n    - {source: 17, target: 18}\n    - {source: 18, sourceHandle: true, target: 19}\n`;
    const r = importDify(text);
    expect(r.workflow.nodes.map((n) => n.id)).toEqual(["17", "18", "19"]);
    expect(r.workflow.edges.map((e) => [e.source, e.sourcePort, e.target])).toEqual([
      ["17", "source", "18"],
      ["18", "true", "19"],
    ]);
    const codes = r.warnings.map((w) => w.code);
    expect(codes).toContain("dsl.node_id_coerced");
    expect(codes).toContain("dsl.edge_field_coerced");
  });

  it("drops edges without a source or target, with a warning", () => {
    const text = `${APP}\nversion: '0.6.0'\nworkflow:\n  graph:\n    nodes:\n    - id: 'a'\n      data: {type: start}\n    edges:\n    - {target: 'a'}\n    - 12\n`;
    const r = importDify(text);
    expect(r.workflow.edges).toEqual([]);
    expect(r.warnings.filter((w) => w.code === "dsl.edge_dropped")).toHaveLength(2);
  });

  it("warns about duplicate node ids but keeps every node", () => {
    const text = `${APP}\nversion: '0.6.0'\nworkflow:\n  graph:\n    nodes:\n    - id: 'a'\n      data: {type: start}\n    - id: 'a'\n      data: {type: end}\n    edges: []\n`;
    const r = importDify(text);
    expect(r.workflow.nodes).toHaveLength(2);
    expect(r.warnings.map((w) => w.code)).toContain("dsl.duplicate_node_id");
  });
});
