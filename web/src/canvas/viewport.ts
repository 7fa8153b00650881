import type { Placed } from "./layout";

/**
 * The zoom a large workflow's first view is drawn at: card titles are 14 px, summaries 12 px, so titles are
 * 10.5 px on screen and the smallest text 9 px. Users can still zoom out further themselves.
 */
export const READABLE_ZOOM = 0.75;
/**
 * A workflow that fits whole at this zoom or more opens fitted: below 0.75 card text grows (styles.css) so
 * titles stay ≥ 11 px and summaries ≥ 9 px on screen, and a small flow seen whole beats a cut-off one.
 */
export const INITIAL_FIT_MIN_ZOOM = 0.6;
export const MAX_INITIAL_ZOOM = 1;
/**
 * Fit goes as far out as a workflow needs: below FAR_ZOOM cards show only icon and title, drawn larger (styles.css),
 * and below TINY_ZOOM only the icon, so no text is ever drawn smaller than 9 px on screen.
 */
export const FIT_MIN_ZOOM = 0.05;
export const FAR_ZOOM = 0.55;
export const TINY_ZOOM = 0.22;
/** Workflows up to this many nodes open fitted whole, whatever zoom that takes; larger ones open readable at the entry. */
export const OPEN_FITTED_NODES = 60;
export const FIT_PADDING = 0.06;

/** The look a zoom gets: full cards, icon + large title, or icon only. */
export function detailLevel(zoom: number): "near" | "far" | "tiny" {
  return zoom < TINY_ZOOM ? "tiny" : zoom < FAR_ZOOM ? "far" : "near";
}

export interface Viewport {
  x: number;
  y: number;
  zoom: number;
}

/**
 * The first view of a workflow: everything, if it fits at a readable zoom or has at most OPEN_FITTED_NODES top-level
 * cards (seen whole in its level-of-detail look); otherwise readable, starting from the entry node at the left edge,
 * vertically centred on it, the way people read a flow.
 */
export function initialViewport(boxes: Placed[], entry: Placed | undefined, width: number, height: number): Viewport {
  if (boxes.length === 0 || width <= 0 || height <= 0) return { x: 0, y: 0, zoom: 1 };
  const minX = Math.min(...boxes.map((b) => b.x));
  const minY = Math.min(...boxes.map((b) => b.y));
  const maxX = Math.max(...boxes.map((b) => b.x + b.width));
  const maxY = Math.max(...boxes.map((b) => b.y + b.height));
  const pad = 48;
  const fit = Math.min((width - 2 * pad) / (maxX - minX), (height - 2 * pad) / (maxY - minY));
  if (fit >= INITIAL_FIT_MIN_ZOOM || boxes.length <= OPEN_FITTED_NODES) {
    const zoom = Math.max(FIT_MIN_ZOOM, Math.min(fit, MAX_INITIAL_ZOOM));
    return {
      zoom,
      x: (width - (maxX - minX) * zoom) / 2 - minX * zoom,
      y: (height - (maxY - minY) * zoom) / 2 - minY * zoom,
    };
  }
  const zoom = READABLE_ZOOM;
  const anchor = entry ?? boxes[0]!;
  const x = pad - minX * zoom;
  if ((maxY - minY) * zoom <= height - 2 * pad)
    return { zoom, x, y: (height - (maxY - minY) * zoom) / 2 - minY * zoom };
  // Taller than the view: start from the top, unless that leaves the entry out of sight.
  const top = pad - minY * zoom;
  const entryBottom = (anchor.y + anchor.height) * zoom + top;
  return { zoom, x, y: entryBottom <= height - pad ? top : height / 2 - (anchor.y + anchor.height / 2) * zoom };
}
