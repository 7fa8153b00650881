// echarts takes seconds to load, so it is imported on first use rather than at CLI start-up.
let echartsModule: Promise<typeof import("echarts")> | undefined;

export interface ChartSize {
  width?: number;
  height?: number;
}

/** Server-side render of an ECharts option to SVG: no DOM, no animation. */
export async function renderEChartsSvg(option: Record<string, unknown>, size: ChartSize = {}): Promise<string> {
  echartsModule ??= import("echarts");
  const echarts = await echartsModule;
  const chart = echarts.init(null, null, {
    renderer: "svg",
    ssr: true,
    width: size.width ?? 800,
    height: size.height ?? 500,
  });
  try {
    chart.setOption({ animation: false, ...option });
    return chart.renderToSVGString();
  } finally {
    chart.dispose();
  }
}
