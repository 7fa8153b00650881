import { describe, expect, it } from "vitest";
import { completeForDify } from "../../src/dsl/dify/index.js";
import type { Workflow } from "../../src/ir/workflow.js";

// Parent chains that loop (a file can say anything) count as top level when the canvas lays nodes out; the depth
// walk stops on them without keeping a set of the nodes it saw.
describe("completeForDify with parent cycles", () => {
  const wf = (nodes: Workflow["nodes"]): Workflow => ({
    weft: 1,
    name: "w",
    description: "",
    mode: "workflow",
    nodes,
    edges: [],
    environment_variables: [],
    conversation_variables: [],
  });

  it("lays out a cycle and a chain into it at the top level", () => {
    const out = completeForDify(
      wf([
        { id: "a", type: "llm", title: "", parentId: "b", config: {} },
        { id: "b", type: "llm", title: "", parentId: "a", config: {} },
        { id: "c", type: "llm", title: "", parentId: "a", config: {} },
        { id: "d", type: "llm", title: "", parentId: "d", config: {} },
      ]),
    );
    for (const n of out.nodes) {
      expect(n.canvas?.position).toBeDefined();
      expect(n.canvas?.positionAbsolute).toEqual(n.canvas?.position);
    }
  });

  it("still nests a child of a container inside it", () => {
    const out = completeForDify(
      wf([
        { id: "it", type: "iteration", title: "", config: {}, canvas: { position: { x: 100, y: 50 } } },
        { id: "s", type: "iteration-start", title: "", parentId: "it", config: {} },
      ]),
    );
    const child = out.nodes[1]?.canvas as { position: { x: number; y: number }; positionAbsolute: unknown };
    expect(child.positionAbsolute).toEqual({ x: 100 + child.position.x, y: 50 + child.position.y });
  });
});
