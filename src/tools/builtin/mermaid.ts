import type { THEMES } from "beautiful-mermaid";
import { ToolError } from "../errors.js";
import { svgToPng } from "../render/raster.js";
import { isMindmap, MindmapError, mindmapToFlowchart } from "./mermaid-mindmap.js";
import { type BuiltinTool, choice, optionalNumber, paramError, str, type ToolContext } from "./types.js";

/** Mermaid's theme names → beautiful-mermaid palettes. */
const THEME_MAP: Record<string, keyof typeof THEMES> = {
  default: "zinc-light",
  neutral: "zinc-light",
  forest: "github-light",
  dark: "zinc-dark",
  base: "zinc-light",
};

/** LLM output usually arrives fenced; the renderer wants the bare diagram. */
export function stripMermaidFence(code: string): string {
  const m = /```(?:mermaid)?[ \t]*\n([\s\S]*?)```/i.exec(code);
  return (m ? (m[1] ?? "") : code).trim();
}

/** The SVG and the colour to paint under it when rasterising (resvg ignores the root's CSS background). */
// The renderers load slowly; importing them on first use keeps CLI start-up fast.
async function renderSvg(ctx: ToolContext, code: string): Promise<{ svg: string; background?: string }> {
  const { renderMermaidSVG, THEMES } = await import("beautiful-mermaid");
  const theme = str(ctx, "theme").trim().toLowerCase() || "default";
  const palette = THEMES[THEME_MAP[theme] ?? "zinc-light"];
  const bg = str(ctx, "background_color").trim();
  let drawable = code;
  try {
    if (isMindmap(code)) drawable = mindmapToFlowchart(code);
  } catch (e) {
    if (e instanceof MindmapError) throw paramError(ctx, "mermaid_code", `is not a valid mind map: ${e.message}`);
    throw e;
  }
  const transparent = bg === "transparent";
  try {
    const svg = renderMermaidSVG(drawable, { ...palette, ...(bg && !transparent ? { bg } : {}), transparent });
    return { svg, background: transparent ? undefined : bg || palette?.bg || "#ffffff" };
  } catch (e) {
    throw paramError(ctx, "mermaid_code", `could not be rendered: ${(e as Error).message}`);
  }
}

async function pngToPdf(png: Uint8Array): Promise<Uint8Array> {
  const { default: PDFDocument } = await import("pdfkit");
  const doc = new PDFDocument({ autoFirstPage: false });
  const chunks: Buffer[] = [];
  doc.on("data", (c: Buffer) => chunks.push(c));
  const done = new Promise<void>((r) => doc.on("end", () => r()));
  // PNG IHDR: width and height are big-endian u32 at bytes 16 and 20.
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  const width = view.getUint32(16);
  const height = view.getUint32(20);
  doc.addPage({ size: [width, height], margin: 0 });
  doc.image(Buffer.from(png), 0, 0, { width, height });
  doc.end();
  await done;
  return new Uint8Array(Buffer.concat(chunks));
}

/** hjlarry/mermaid_converter: Mermaid code → an image file (SVG here; PNG/PDF through resvg). */
export const mermaidTools: BuiltinTool[] = [
  {
    provider: "mermaid_converter",
    name: "mermaid_converter",
    label: "Mermaid Converter",
    description:
      "Render Mermaid diagram code (flowchart, sequence, state, class, ER, xychart, mindmap) to an SVG, PNG or PDF file.",
    parameters: [
      { name: "mermaid_code", type: "string", required: true, form: "llm", description: "Mermaid diagram code" },
      {
        name: "output_format",
        type: "select",
        required: false,
        form: "form",
        description: "png, svg or pdf",
        options: ["png", "svg", "pdf", "jpg"],
        default: "png",
      },
      {
        name: "theme",
        type: "select",
        required: false,
        form: "form",
        description: "default, neutral, forest, dark",
        default: "default",
      },
      {
        name: "background_color",
        type: "string",
        required: false,
        form: "form",
        description: "CSS colour or transparent",
      },
      { name: "width", type: "number", required: false, form: "form", description: "raster width in pixels" },
      {
        name: "height",
        type: "number",
        required: false,
        form: "form",
        description: "ignored: the aspect ratio is kept",
      },
      {
        name: "output_filename",
        type: "string",
        required: false,
        form: "llm",
        description: "file name without extension",
      },
    ],
    async run(ctx) {
      const code = stripMermaidFence(str(ctx, "mermaid_code"));
      if (!code) throw paramError(ctx, "mermaid_code", "is empty");
      const format = choice(ctx, "output_format", ["png", "svg", "pdf", "jpg", "jpeg"] as const, "png");
      if (format === "jpg" || format === "jpeg") {
        throw new ToolError(
          "tool.unsupported_option",
          `tool ${ctx.providerId}/${ctx.toolName}: output_format "${format}" is not available offline; use png, svg or pdf`,
          {
            provider: ctx.providerId,
            tool: ctx.toolName,
            parameter: "output_format",
          },
        );
      }
      const { svg, background } = await renderSvg(ctx, code);
      const base = str(ctx, "output_filename").trim() || "mermaid_diagram";
      if (format === "svg") {
        const file = await ctx.files.put(new TextEncoder().encode(svg), {
          filename: `${base}.svg`,
          mimeType: "image/svg+xml",
        });
        return { files: [file] };
      }
      const png = svgToPng(svg, { width: optionalNumber(ctx, "width"), background });
      if (format === "png") {
        return { files: [await ctx.files.put(png, { filename: `${base}.png`, mimeType: "image/png" })] };
      }
      return {
        files: [await ctx.files.put(await pngToPdf(png), { filename: `${base}.pdf`, mimeType: "application/pdf" })],
      };
    },
  },
];
