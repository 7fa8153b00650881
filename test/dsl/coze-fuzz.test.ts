import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CanvasSchema, CozeExportError, exportCozeDetailed } from "../../src/dsl/coze/index.js";
import { type WorkflowInput, WorkflowSchema } from "../../src/ir/workflow.js";

/**
 * Property: for any small workflow built from the node kinds the exporter knows (and a few it
 * refuses), exportCoze either yields a canvas the Coze schema accepts, with every edge accounted
 * for, or throws CozeExportError naming nodes of that workflow — never anything else.
 */

type Out = { node: string; name: string };
const KINDS = ["llm", "code", "js", "template", "if", "agg", "http", "tool"] as const;
const OPS = ["contains", "is", "empty", "start with", "≥"];

interface Step {
  kind: (typeof KINDS)[number];
  from: number;
  ref: number;
  ref2: number;
  op: number;
  extraEdge: boolean;
}

function build(steps: Step[], ends: number): WorkflowInput {
  const nodes: WorkflowInput["nodes"] = [
    {
      id: "start",
      type: "start",
      title: "Start",
      config: { variables: [{ variable: "q", type: "text-input", required: true }] },
    },
  ];
  const edges: WorkflowInput["edges"] = [];
  const outs: Out[] = [{ node: "start", name: "q" }];
  const ids = ["start"];
  const pickOut = (i: number) => outs[i % outs.length]!;
  const sel = (o: Out) => [o.node, o.name];
  const connect = (source: string, target: string) => {
    const src = nodes.find((n) => n.id === source)!;
    const port =
      src.type === "if-else"
        ? edges.some((e) => e.source === source && e.sourcePort === "true")
          ? "false"
          : "true"
        : "source";
    edges.push({ source, sourcePort: port, target });
  };
  steps.forEach((s, i) => {
    const id = `n${i}`;
    const a = pickOut(s.ref);
    const b = pickOut(s.ref2);
    switch (s.kind) {
      case "llm":
        nodes.push({
          id,
          type: "llm",
          title: id,
          config: {
            model: { provider: "p", name: "m" },
            prompt_template: [{ role: "user", text: `Say {{#${a.node}.${a.name}#}}` }],
          },
        });
        outs.push({ node: id, name: "text" });
        break;
      case "code":
      case "js":
        nodes.push({
          id,
          type: "code",
          title: id,
          config: {
            code_language: s.kind === "js" ? "javascript" : "python3",
            code:
              s.kind === "js"
                ? "function main({a}) { return {r: String(a)} }"
                : "def main(a) -> dict:\n    return {'r': str(a)}\n",
            variables: [{ variable: "a", value_selector: sel(a) }],
            outputs: { r: { type: "string" } },
          },
        });
        outs.push({ node: id, name: "r" });
        break;
      case "template":
        nodes.push({
          id,
          type: "template-transform",
          title: id,
          config: { template: "{{ a }}!", variables: [{ variable: "a", value_selector: sel(a) }] },
        });
        outs.push({ node: id, name: "output" });
        break;
      case "if":
        nodes.push({
          id,
          type: "if-else",
          title: id,
          config: {
            cases: [
              {
                case_id: "true",
                logical_operator: "and",
                conditions: [{ variable_selector: sel(a), comparison_operator: OPS[s.op % OPS.length], value: "1" }],
              },
            ],
          },
        });
        break;
      case "agg":
        nodes.push({
          id,
          type: "variable-aggregator",
          title: id,
          config: { output_type: "string", variables: [sel(a), sel(b)] },
        });
        outs.push({ node: id, name: "output" });
        break;
      case "http":
        nodes.push({
          id,
          type: "http-request",
          title: id,
          config: { method: "get", url: `https://example.com/{{#${a.node}.${a.name}#}}` },
        });
        outs.push({ node: id, name: "body" }, { node: id, name: "status_code" });
        break;
      case "tool":
        nodes.push({ id, type: "tool", title: id, config: { provider_id: "p", tool_name: "t", tool_parameters: {} } });
        break;
    }
    connect(ids[s.from % ids.length]!, id);
    if (s.extraEdge && ids.length > 1) connect(ids[(s.from + 1) % ids.length]!, id);
    ids.push(id);
  });
  for (let k = 0; k < ends; k++) {
    const o = pickOut(k * 7 + 3);
    const id = `end${k}`;
    nodes.push({ id, type: "end", title: id, config: { outputs: [{ variable: "out", value_selector: sel(o) }] } });
    connect(ids[ids.length - 1 - (k % ids.length)]!, id);
  }
  return { mode: "workflow", nodes, edges };
}

const step = fc.record({
  kind: fc.constantFrom(...KINDS),
  from: fc.nat(20),
  ref: fc.nat(20),
  ref2: fc.nat(20),
  op: fc.nat(10),
  extraEdge: fc.boolean(),
});

describe("exportCoze on generated workflows", () => {
  it("returns a valid canvas or a CozeExportError naming the workflow's nodes", () => {
    let exported = 0;
    let refused = 0;
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 7 }), fc.integer({ min: 1, max: 3 }), (steps, ends) => {
        const w = WorkflowSchema.parse(build(steps, ends));
        try {
          const { canvas, ids } = exportCozeDetailed(w);
          const parsed = CanvasSchema.safeParse(JSON.parse(JSON.stringify(canvas)));
          expect(parsed.success, JSON.stringify(parsed.error?.issues?.slice(0, 2))).toBe(true);
          // Every Weft edge between exported nodes is a Coze edge (ends are redirected to the exit side).
          for (const e of w.edges) {
            if (e.target.startsWith("end")) continue;
            expect(canvas.edges.some((c) => c.sourceNodeID === ids[e.source] && c.targetNodeID === ids[e.target])).toBe(
              true,
            );
          }
          exported++;
        } catch (e) {
          if (!(e instanceof CozeExportError)) throw e;
          expect(e.code).toBe("coze.unsupported_node");
          expect(e.problems.length).toBeGreaterThan(0);
          const known = new Set(w.nodes.map((n) => n.id));
          for (const p of e.problems) expect(known.has(p.nodeId)).toBe(true);
          refused++;
        }
      }),
      { numRuns: 300, seed: 20261202 },
    );
    // Both outcomes occur, so the property exercises real canvases and real refusals.
    expect(exported).toBeGreaterThan(20);
    expect(refused).toBeGreaterThan(20);
  });
});
