import * as echarts from "echarts";

export interface ChartSize {
  width?: number;
  height?: number;
}

/** Server-side render of an ECharts option to SVG: no DOM, no animation. */
export function renderEChartsSvg(option: Record<string, unknown>, size: ChartSize = {}): string {
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
