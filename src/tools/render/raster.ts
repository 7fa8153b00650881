import { createRequire } from "node:module";
import { NotConfiguredError } from "../../ir/errors.js";
import { flattenCssVariables } from "./css-vars.js";

type ResvgModule = typeof import("@resvg/resvg-js");
let resvg: ResvgModule | null | undefined;

/** resvg ships a per-platform binary as an optional npm package; a platform without one has no PNG. */
function loadResvg(): ResvgModule | null {
  if (resvg !== undefined) return resvg;
  try {
    resvg = createRequire(import.meta.url)("@resvg/resvg-js") as ResvgModule;
  } catch {
    resvg = null;
  }
  return resvg;
}

export function pngAvailable(): boolean {
  return loadResvg() !== null;
}

export interface RasterOptions {
  /** Output width in pixels; the height follows the aspect ratio. */
  width?: number;
  /** CSS colour painted under the image; transparent when omitted. */
  background?: string;
}

export function svgToPng(svg: string, opts: RasterOptions = {}): Uint8Array {
  const mod = loadResvg();
  if (!mod) {
    throw new NotConfiguredError(
      "render.png_unavailable",
      "PNG rendering needs @resvg/resvg-js with a binary for this platform; install it or ask for SVG output",
    );
  }
  const r = new mod.Resvg(flattenCssVariables(svg), {
    fitTo: opts.width ? { mode: "width", value: Math.round(opts.width) } : { mode: "original" },
    background: opts.background || undefined,
    font: { loadSystemFonts: true, defaultFontFamily: "DejaVu Sans", sansSerifFamily: "DejaVu Sans" },
    logLevel: "off",
  });
  return new Uint8Array(r.render().asPng());
}
