// Where a node an AI edit adds appears on the canvas: next to the node it follows, never over another card.
import { describe, expect, it } from "vitest";
import { placeNewNodes } from "../../src/authoring/edit/ids.js";
import { WorkflowSchema } from "../../src/ir/workflow.js";

const node = (id: string, x?: number, y?: number) => ({
  id,
  type: "template-transform",
  title: id,
  config: { variables: [], template: "" },
  ...(x !== undefined ? { canvas: { position: { x, y } } } : {}),
});

describe("placeNewNodes", () => {
  it("puts a node added after Wrap right of it, but below End when End is nearly level (the review screenshot's overlap)", () => {
    const wf = WorkflowSchema.parse({
      name: "w",
      mode: "workflow",
      nodes: [node("start", 0, 100), node("wrap", 320, 40), node("end", 640, 100), node("shout")],
      edges: [
        { source: "start", target: "wrap" },
        { source: "wrap", target: "shout" },
        { source: "shout", target: "end" },
      ],
    });
    const placed = placeNewNodes(wf, new Set(["shout"]));
    const at = placed.nodes.find((n) => n.id === "shout")!.canvas!.position as { x: number; y: number };
    expect(at.x).toBe(660);
    // Before: y 170, 70 px under End's top — the cards overlapped.
    for (const other of placed.nodes.filter((n) => n.id !== "shout")) {
      const p = other.canvas!.position as { x: number; y: number };
      const overlaps = Math.abs(p.x - at.x) < 272 && Math.abs(p.y - at.y) < 130;
      expect(overlaps, `over ${other.id}`).toBe(false);
    }
    // Stored nodes keep their positions.
    expect(placed.nodes.filter((n) => n.id !== "shout")).toEqual(wf.nodes.filter((n) => n.id !== "shout"));
  });

  it("leaves a workflow without positions to the layout", () => {
    const wf = WorkflowSchema.parse({
      name: "w",
      mode: "workflow",
      nodes: [node("a"), node("b")],
      edges: [{ source: "a", target: "b" }],
    });
    expect(placeNewNodes(wf, new Set(["b"]))).toEqual(wf);
  });
});
