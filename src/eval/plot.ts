/**
 * A minimal hand-written SVG line plot for pass^k curves: axes, ticks, one polyline (plus point markers)
 * per series and a legend. No charting dependency: the output is small, deterministic and diffable.
 */

export interface PlotSeries {
  label: string;
  /** (x, y) points; y is expected in [0, 1] (values outside are clamped to the frame). */
  points: Array<{ x: number; y: number }>;
  color?: string;
}

export interface PlotOptions {
  title?: string;
  xLabel?: string;
  yLabel?: string;
  width?: number;
  height?: number;
}

const PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd"];

export function escapeXml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" })[c]!);
}

const fmt = (v: number) => (Math.round(v * 100) / 100).toString();

/** Renders the series on a [xmin, xmax] × [0, 1] frame; x ticks at every integer when there are ≤ 20 of them. */
export function lineChartSvg(series: readonly PlotSeries[], opts: PlotOptions = {}): string {
  const width = opts.width ?? 640;
  const height = opts.height ?? 400;
  const m = { top: 40, right: 150, bottom: 50, left: 60 };
  const w = width - m.left - m.right;
  const h = height - m.top - m.bottom;
  const xs = series.flatMap((s) => s.points.map((p) => p.x));
  const xmin = xs.length ? Math.min(...xs) : 1;
  const xmaxRaw = xs.length ? Math.max(...xs) : 1;
  // A single k still needs a non-degenerate axis.
  const xmax = xmaxRaw === xmin ? xmin + 1 : xmaxRaw;
  const sx = (x: number) => m.left + ((x - xmin) / (xmax - xmin)) * w;
  const sy = (y: number) => m.top + (1 - Math.min(1, Math.max(0, y))) * h;

  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect x="0" y="0" width="${width}" height="${height}" fill="white"/>`,
  ];
  if (opts.title)
    out.push(`<text x="${width / 2}" y="22" text-anchor="middle" font-size="15">${escapeXml(opts.title)}</text>`);
  // Axes.
  out.push(
    `<line x1="${m.left}" y1="${m.top + h}" x2="${m.left + w}" y2="${m.top + h}" stroke="black"/>`,
    `<line x1="${m.left}" y1="${m.top}" x2="${m.left}" y2="${m.top + h}" stroke="black"/>`,
  );
  for (let i = 0; i <= 5; i++) {
    const y = i / 5;
    out.push(
      `<line x1="${m.left - 4}" y1="${sy(y)}" x2="${m.left + w}" y2="${sy(y)}" stroke="${i === 0 ? "black" : "#e0e0e0"}"/>`,
      `<text x="${m.left - 8}" y="${sy(y) + 4}" text-anchor="end">${fmt(y)}</text>`,
    );
  }
  const span = Math.round(xmaxRaw - xmin);
  const step = span <= 20 ? 1 : Math.ceil(span / 10);
  for (let x = xmin; x <= xmaxRaw + 1e-9; x += step) {
    out.push(
      `<line x1="${sx(x)}" y1="${m.top + h}" x2="${sx(x)}" y2="${m.top + h + 4}" stroke="black"/>`,
      `<text x="${sx(x)}" y="${m.top + h + 18}" text-anchor="middle">${fmt(x)}</text>`,
    );
  }
  if (opts.xLabel)
    out.push(`<text x="${m.left + w / 2}" y="${height - 12}" text-anchor="middle">${escapeXml(opts.xLabel)}</text>`);
  if (opts.yLabel)
    out.push(
      `<text x="16" y="${m.top + h / 2}" text-anchor="middle" transform="rotate(-90 16 ${m.top + h / 2})">${escapeXml(opts.yLabel)}</text>`,
    );
  // Series and legend.
  series.forEach((s, i) => {
    const color = s.color ?? PALETTE[i % PALETTE.length]!;
    const pts = [...s.points].sort((a, b) => a.x - b.x);
    if (pts.length > 1)
      out.push(
        `<polyline fill="none" stroke="${color}" stroke-width="2" points="${pts.map((p) => `${sx(p.x).toFixed(2)},${sy(p.y).toFixed(2)}`).join(" ")}"/>`,
      );
    for (const p of pts)
      out.push(`<circle cx="${sx(p.x).toFixed(2)}" cy="${sy(p.y).toFixed(2)}" r="3" fill="${color}"/>`);
    const ly = m.top + 10 + i * 18;
    out.push(
      `<line x1="${m.left + w + 15}" y1="${ly}" x2="${m.left + w + 35}" y2="${ly}" stroke="${color}" stroke-width="2"/>`,
      `<text x="${m.left + w + 40}" y="${ly + 4}">${escapeXml(s.label)}</text>`,
    );
  });
  out.push("</svg>");
  return `${out.join("\n")}\n`;
}

/** The pass^k curve of an evaluation (k = 1..n), strict and lenient. */
export function passKCurveSvg(
  passAtK: ReadonlyArray<{ k: number; strict: number; lenient: number }>,
  title: string,
): string {
  return lineChartSvg(
    [
      { label: "strict", points: passAtK.map((p) => ({ x: p.k, y: p.strict })) },
      { label: "lenient", points: passAtK.map((p) => ({ x: p.k, y: p.lenient })) },
    ],
    { title, xLabel: "k", yLabel: "pass^k" },
  );
}
