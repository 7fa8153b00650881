import type { FileValue } from "../../ir/services.js";
import { renderEChartsSvg } from "../render/echarts.js";
import { pngAvailable, svgToPng } from "../render/raster.js";
import { type BuiltinTool, list, numberList, paramError, str, type ToolContext } from "./types.js";

type Kind = "bar" | "line" | "pie";

/** The ECharts option for one of the three chart tools (langgenius/echarts parameters). */
export function chartOption(ctx: ToolContext, kind: Kind): Record<string, unknown> {
  const data = numberList(ctx, "data");
  if (data.length === 0) throw paramError(ctx, "data", 'is required: numbers separated by ";", e.g. "1;2;3"');
  const title = str(ctx, "title").trim();
  const labelsParam = kind === "pie" ? "categories" : "x_axis";
  let labels = list(ctx, labelsParam);
  if (labels.length === 0) labels = data.map((_, i) => String(i + 1));
  if (labels.length !== data.length) {
    throw paramError(ctx, labelsParam, `has ${labels.length} entries but data has ${data.length}; they must match`);
  }
  const head = title ? { title: { text: title, left: "center" } } : {};
  if (kind === "pie") {
    return {
      ...head,
      tooltip: { trigger: "item" },
      legend: { orient: "vertical", left: "left", top: title ? 40 : 10 },
      series: [{ type: "pie", radius: "55%", data: labels.map((name, i) => ({ name, value: data[i] })) }],
    };
  }
  return {
    ...head,
    tooltip: { trigger: "axis" },
    xAxis: { type: "category", data: labels },
    yAxis: { type: "value" },
    series: [{ type: kind, data }],
  };
}

async function images(
  ctx: ToolContext,
  option: Record<string, unknown>,
  formats: Array<"svg" | "png">,
): Promise<FileValue[]> {
  const svg = await renderEChartsSvg(option);
  const base = `${ctx.toolName}`;
  const out: FileValue[] = [];
  if (formats.includes("svg"))
    out.push(
      await ctx.files.put(new TextEncoder().encode(svg), { filename: `${base}.svg`, mimeType: "image/svg+xml" }),
    );
  if (formats.includes("png") && pngAvailable()) {
    out.push(
      await ctx.files.put(svgToPng(svg, { background: "#ffffff" }), { filename: `${base}.png`, mimeType: "image/png" }),
    );
  }
  return out;
}

const PARAMS = (kind: Kind, titleRequired: boolean) => [
  { name: "title", type: "string" as const, required: titleRequired, form: "llm" as const, description: "chart title" },
  {
    name: "data",
    type: "string" as const,
    required: true,
    form: "llm" as const,
    description: 'numbers separated by ";"',
  },
  kind === "pie"
    ? {
        name: "categories",
        type: "string" as const,
        required: true,
        form: "llm" as const,
        description: 'labels separated by ";"',
      }
    : {
        name: "x_axis",
        type: "string" as const,
        required: true,
        form: "llm" as const,
        description: 'x axis labels separated by ";"',
      },
];

const LABELS: Record<Kind, string> = { bar: "Bar Chart", line: "Linear Chart", pie: "Pie Chart" };

/**
 * langgenius/echarts: the plugin answers with an ```echarts fenced option, which Dify's chat UI draws.
 * Weft returns the same text, the option in `json`, and the chart drawn server-side as SVG (+PNG).
 */
export const echartsTools: BuiltinTool[] = (["bar", "line", "pie"] as const).map((kind) => ({
  provider: "echarts",
  name: `${kind}_chart`,
  label: LABELS[kind],
  description: `Generate a ${kind} chart from ";"-separated numbers and labels.`,
  parameters: PARAMS(kind, true),
  async run(ctx) {
    const option = chartOption(ctx, kind);
    return {
      text: `\n\`\`\`echarts\n${JSON.stringify(option)}\n\`\`\`\n`,
      json: [option],
      files: await images(ctx, option, ["svg", "png"]),
    };
  },
}));

/** Dify's pre-plugin built-in `chart` provider drew the same three charts as images. */
export const legacyChartTools: BuiltinTool[] = (["bar", "line", "pie"] as const).map((kind) => ({
  provider: "chart",
  name: `${kind}_chart`,
  label: LABELS[kind],
  description: `Draw a ${kind} chart image from ";"-separated numbers and labels.`,
  parameters: PARAMS(kind, false),
  async run(ctx) {
    const option = chartOption(ctx, kind);
    return { files: await images(ctx, option, pngAvailable() ? ["png"] : ["svg"]) };
  },
}));
