/**
 * Issue 37 R8: the mermaid_converter tool draws Mermaid `mindmap` diagrams (Chat2Workflow's DeepResearch_2
 * asks for a mind map), as the same tree in flowchart form; a malformed mind map is a typed parameter error.
 */
import { describe, expect, it } from "vitest";
import type { FileValue } from "../../src/ir/services.js";
import { LocalToolService } from "../../src/tools/builtin/index.js";
import { isMindmap, mindmapToFlowchart, parseMindmap } from "../../src/tools/builtin/mermaid-mindmap.js";
import { MemoryFileService } from "../../src/tools/files.js";

// Mermaid's own documentation example, with a bang, a cloud, an icon and a class line.
const DOC_EXAMPLE = `mindmap
  root((mindmap))
    Origins
      Long history
      ::icon(fa fa-book)
      Popularisation
        British popular psychology author Tony Buzan
    Research
      On effectiveness<br/>and features
      On Automatic creation
        Uses
            Creative techniques
            Strategic planning
            Argument mapping
    Tools
      Pen and paper
      Mermaid
      id))Bang((
      id2)Cloud(
      id3{{"a "quoted" hexagon"}}
      :::urgent`;

describe("mind maps in the mermaid_converter tool", () => {
  it("reads the tree: one root, children by indentation, decorations skipped", () => {
    const root = parseMindmap(DOC_EXAMPLE);
    expect(root).toMatchObject({ label: "mindmap", shape: "circle" });
    expect(root.children.map((c) => c.label)).toEqual(["Origins", "Research", "Tools"]);
    const [origins, research, tools] = root.children;
    expect(origins!.children.map((c) => c.label)).toEqual(["Long history", "Popularisation"]);
    expect(origins!.children[1]!.children.map((c) => c.label)).toEqual([
      "British popular psychology author Tony Buzan",
    ]);
    expect(research!.children[1]!.children[0]!.children.map((c) => c.label)).toEqual([
      "Creative techniques",
      "Strategic planning",
      "Argument mapping",
    ]);
    expect(tools!.children.map((c) => [c.label, c.shape])).toEqual([
      ["Pen and paper", "rounded"],
      ["Mermaid", "rounded"],
      ["Bang", "circle"],
      ["Cloud", "rounded"],
      ['a "quoted" hexagon', "hexagon"],
    ]);
  });

  it("writes every node and parent edge as a flowchart", () => {
    const fc = mindmapToFlowchart("mindmap\n  root[Plan]\n    A\n    B\n      C").split("\n");
    expect(fc[0]).toBe("graph LR");
    expect(fc).toContain('  m0["Plan"]');
    expect(fc).toContain('  m3("C")');
    expect(fc.filter((l) => l.includes("-->")).sort()).toEqual(["  m0 --> m1", "  m0 --> m2", "  m2 --> m3"]);
    expect(mindmapToFlowchart('mindmap\n  r["say \\"hi\\""]')).toContain("&quot;");
  });

  it("knows a mind map behind front matter and comments, and nothing else", () => {
    expect(isMindmap("---\ntitle: x\n---\n%% note\nmindmap\n  a")).toBe(true);
    expect(isMindmap("graph TD\n  a --> b")).toBe(false);
    expect(isMindmap("")).toBe(false);
  });

  it("refuses two roots, an empty map and an empty node, naming the line", () => {
    expect(() => parseMindmap("mindmap\n  a\n  b")).toThrow(/line 3: "b" is a second root/);
    expect(() => parseMindmap("mindmap\n")).toThrow(/line 1: the mind map has no nodes/);
    expect(() => parseMindmap("mindmap\n  a\n    x[ ]")).toThrow(/line 3: node "x\[ \]" has no text/);
  });

  it("renders through the tool to a PNG and an SVG holding every label", async () => {
    const files = new MemoryFileService();
    const tools = new LocalToolService({ files });
    const invoke = (code: string, output_format: string) =>
      tools.invoke({
        providerId: "hjlarry/mermaid_converter/mermaid_converter",
        toolName: "mermaid_converter",
        parameters: { mermaid_code: `\`\`\`mermaid\n${code}\n\`\`\`` },
        configurations: { output_format },
      });
    const svg = await invoke(DOC_EXAMPLE, "svg");
    const text = new TextDecoder().decode(await files.get(svg.files[0] as FileValue));
    for (const label of ["mindmap", "Tony Buzan", "Argument mapping", "Bang", "Cloud", "quoted"]) {
      expect(text).toContain(label);
    }
    const png = await invoke(DOC_EXAMPLE, "png");
    expect(png.files[0]).toMatchObject({ mime_type: "image/png", extension: ".png" });
    await expect(invoke("mindmap\n  a\n  b", "png")).rejects.toMatchObject({
      code: "tool.invalid_parameter",
      details: { parameter: "mermaid_code" },
    });
  });
});
