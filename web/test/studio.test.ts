import { describe, expect, it } from "vitest";
import { portLabel, summary } from "../src/canvas/summary";
import {
  detailLevel,
  FIT_MIN_ZOOM,
  INITIAL_FIT_MIN_ZOOM,
  initialViewport,
  READABLE_ZOOM,
} from "../src/canvas/viewport";
import { fieldLabel, kindOf } from "../src/inspector/fieldKind";
import { humanize, readableTemplate, selectorLabel } from "../src/labels";
import type { Workflow } from "../src/types";

const wf: Workflow = {
  weft: 1,
  name: "t",
  description: "",
  mode: "workflow",
  nodes: [
    { id: "1718002000001", type: "start", title: "Start", config: { variables: [{ variable: "q" }] } },
    {
      id: "12",
      type: "llm",
      title: "Writer",
      config: { model: { provider: "langgenius/openai/openai", name: "gpt-4o" } },
    },
    {
      id: "ifx",
      type: "if-else",
      title: "Route",
      config: {
        cases: [
          {
            case_id: "true",
            logical_operator: "and",
            conditions: [{ variable_selector: ["1718002000001", "q"], comparison_operator: "contains", value: "hi" }],
          },
          {
            case_id: "c2",
            logical_operator: "or",
            conditions: [{ variable_selector: ["sys", "user_id"], comparison_operator: "empty" }],
          },
        ],
      },
    },
  ],
  edges: [],
  environment_variables: [],
  conversation_variables: [],
};

describe("names for ids", () => {
  it("names selectors and template references by node title", () => {
    expect(selectorLabel(wf, ["1718002000001", "q"])).toBe("Start / q");
    expect(selectorLabel(wf, ["sys", "query"])).toBe("System / query");
    expect(readableTemplate(wf, "Say {{#12.text#}} now")).toBe("Say {Writer / text} now");
  });

  it("replaces whole node ids in messages, never parts of other numbers or words", () => {
    expect(humanize(wf, '"12" runs when 1718002000001=true; 123 and x12 stay')).toBe(
      '"Writer" runs when "Start"=true; 123 and x12 stay',
    );
  });
});

describe("card lines", () => {
  it("says what a node does: the model, and each branch's condition on its port", () => {
    expect(summary(wf, wf.nodes[1]!)).toBe("gpt-4o (openai)");
    expect(portLabel(wf, wf.nodes[2]!, "true")).toBe("IF Start / q contains hi");
    expect(portLabel(wf, wf.nodes[2]!, "c2")).toBe("ELIF System / user_id empty");
    expect(portLabel(wf, wf.nodes[2]!, "false")).toBe("ELSE");
  });
});

describe("first view", () => {
  const box = (x: number, y: number) => ({ x, y, width: 244, height: 70 });

  it("fits a small workflow, never above 100%", () => {
    const v = initialViewport([box(0, 0), box(300, 0)], box(0, 0), 1000, 800);
    expect(v.zoom).toBe(1);
  });

  it("fits a six-node flow whole when that needs a zoom between the fitting minimum and the readable zoom", () => {
    const boxes = Array.from({ length: 6 }, (_, i) => box(i * 230, 0));
    const v = initialViewport(boxes, boxes[0], 1000, 800);
    expect(v.zoom).toBeGreaterThanOrEqual(INITIAL_FIT_MIN_ZOOM);
    expect(v.zoom).toBeLessThan(READABLE_ZOOM);
    // Everything is on screen: the last card's right edge is inside the view.
    expect(5 * 230 * v.zoom + 244 * v.zoom + v.x).toBeLessThanOrEqual(1000);
  });

  it("fits a workflow of up to 60 nodes whole, however far out that is", () => {
    const boxes = Array.from({ length: 60 }, (_, i) => box(i * 300, (i % 3) * 120));
    const v = initialViewport(boxes, boxes[0], 1000, 800);
    expect(v.zoom).toBeLessThan(0.1);
    expect(v.zoom).toBeGreaterThanOrEqual(FIT_MIN_ZOOM);
    expect(v.x + 59 * 300 * v.zoom + 244 * v.zoom).toBeLessThanOrEqual(1000);
    expect(detailLevel(v.zoom)).toBe("tiny");
    expect(detailLevel(0.4)).toBe("far");
    expect(detailLevel(0.7)).toBe("near");
  });

  it("keeps a workflow of more than 60 nodes readable, starting at the entry on the left", () => {
    const boxes = Array.from({ length: 61 }, (_, i) => box(i * 300, (i % 3) * 120));
    const v = initialViewport(boxes, boxes[0], 1000, 800);
    expect(v.zoom).toBe(READABLE_ZOOM);
    expect(v.x).toBeGreaterThan(0);
    expect(v.x).toBeLessThan(100);
  });
});

describe("field kinds from node schemas", () => {
  it("recognises selectors, enums and structure", () => {
    expect(kindOf({ type: "array", items: { anyOf: [{ type: "string" }, { type: "number" }] } }).kind).toBe("selector");
    expect(kindOf({ type: "string", enum: ["a", "b"] })).toEqual({ kind: "enum", options: ["a", "b"] });
    expect(kindOf({ anyOf: [{ const: "x" }, { const: "y" }] })).toEqual({ kind: "enum", options: ["x", "y"] });
    expect(kindOf({ type: "array", items: { type: "object", properties: { a: { type: "string" } } } }).kind).toBe(
      "list",
    );
    expect(fieldLabel("query_variable_selector")).toBe("Query");
    expect(fieldLabel("max_length")).toBe("Max length");
  });
});
