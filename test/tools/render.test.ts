import { Resvg } from "@resvg/resvg-js";
import { renderMermaidSVG } from "beautiful-mermaid";
import { describe, expect, it } from "vitest";
import { flattenCssVariables } from "../../src/tools/render/css-vars.js";
import { markdownTables, parseMarkdown, stripOuterFence } from "../../src/tools/render/markdown.js";
import { pngAvailable, svgToPng } from "../../src/tools/render/raster.js";

describe("flattenCssVariables", () => {
  it("resolves var() with fallbacks and color-mix into plain colours", () => {
    const svg =
      '<svg xmlns="http://www.w3.org/2000/svg" style="--bg:#FFFFFF;--fg:#000000"><style>svg { --_line: var(--line, color-mix(in srgb, var(--fg) 50%, var(--bg))); }</style>' +
      '<rect fill="var(--_line)" stroke="var(--missing, #ff0000)"/><text fill="var(--fg)">x</text></svg>';
    const flat = flattenCssVariables(svg);
    expect(flat).toContain('fill="#808080"');
    expect(flat).toContain('stroke="#ff0000"');
    expect(flat).toContain('<text fill="#000000">');
  });

  it("leaves no var() in attributes of a beautiful-mermaid SVG and drops the web font import", () => {
    const flat = flattenCssVariables(renderMermaidSVG("graph LR\n  A --> B"));
    const attrs = [...flat.matchAll(/\s(fill|stroke)="([^"]*)"/g)].map((m) => m[2]);
    expect(attrs.length).toBeGreaterThan(2);
    for (const a of attrs) expect(a).not.toContain("var(");
    expect(flat).not.toContain("@import");
  });
});

describe("svgToPng", () => {
  it("draws the mermaid diagram's boxes and text, not black shapes", () => {
    expect(pngAvailable()).toBe(true);
    const svg = renderMermaidSVG("graph TD\n  A[Start] --> B[Stop]");
    const png = svgToPng(svg, { background: "#ffffff" });
    expect([...png.slice(1, 4)]).toEqual([80, 78, 71]);
    // Same pipeline as svgToPng, kept as raw pixels to look at them.
    const img = new Resvg(flattenCssVariables(svg), { background: "#ffffff" }).render();
    const px = img.pixels; // a getter that copies: read it once
    let dark = 0;
    let white = 0;
    for (let i = 0; i < px.length; i += 4) {
      const lum = ((px[i] as number) + (px[i + 1] as number) + (px[i + 2] as number)) / 3;
      if (lum < 80) dark++;
      else if (lum > 240) white++;
    }
    const total = px.length / 4;
    // Mostly background, a little ink (text, arrows): an unflattened SVG renders the boxes solid black.
    expect(white / total).toBeGreaterThan(0.8);
    expect(dark).toBeGreaterThan(20);
    expect(dark / total).toBeLessThan(0.05);
    // The raw SVG (CSS variables unresolved) is what resvg would otherwise draw: solid black boxes.
    const raw = new Resvg(svg, { background: "#ffffff" }).render().pixels;
    let rawDark = 0;
    for (let i = 0; i < raw.length; i += 4)
      if (((raw[i] as number) + (raw[i + 1] as number) + (raw[i + 2] as number)) / 3 < 80) rawDark++;
    expect(rawDark / (raw.length / 4)).toBeGreaterThan(0.05);
  });

  it("scales to a requested width", () => {
    const png = svgToPng(
      '<svg xmlns="http://www.w3.org/2000/svg" width="100" height="50"><rect width="100" height="50" fill="red"/></svg>',
      {
        width: 300,
      },
    );
    const v = new DataView(png.buffer, png.byteOffset);
    expect([v.getUint32(16), v.getUint32(20)]).toEqual([300, 150]);
  });
});

describe("markdown model", () => {
  it("strips one outer ```markdown fence only", () => {
    expect(stripOuterFence("```markdown\n# A\n```")).toBe("# A");
    expect(stripOuterFence("# A\n```js\nx\n```")).toBe("# A\n```js\nx\n```");
  });

  it("parses inline styles, nested lists, tasks and tables", () => {
    const blocks = parseMarkdown("**b** *i* `c` [l](http://x)\n\n- [x] done\n  - inner\n\n|a|b|\n|-|-|\n|1|2|");
    expect(blocks[0]).toEqual({
      kind: "paragraph",
      runs: [
        { text: "b", bold: true },
        { text: " " },
        { text: "i", italic: true },
        { text: " " },
        { text: "c", code: true },
        { text: " " },
        { text: "l", link: "http://x" },
      ],
    });
    const list = blocks[1];
    expect(list?.kind).toBe("list");
    expect(JSON.stringify(list)).toContain("☑ ");
    expect(JSON.stringify(list)).toContain("inner");
    expect(markdownTables("|a|b|\n|-|-|\n|1|2|")).toEqual([
      [
        ["a", "b"],
        ["1", "2"],
      ],
    ]);
  });
});
