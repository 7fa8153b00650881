/**
 * Resolve CSS custom properties in an SVG so renderers without CSS-variable support (resvg) draw the
 * right colours. beautiful-mermaid writes its palette as `--bg`/`--fg` on the root plus derived
 * `--_x: color-mix(...)` variables; we compute them and substitute every `var(...)` use.
 */

function parseHex(c: string): [number, number, number] | undefined {
  const m = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(c.trim());
  if (!m) return undefined;
  let h = m[1] as string;
  if (h.length === 3) h = [...h].map((x) => x + x).join("");
  return [0, 2, 4].map((i) => Number.parseInt(h.slice(i, i + 2), 16)) as [number, number, number];
}

function toHex([r, g, b]: [number, number, number]): string {
  return `#${[r, g, b]
    .map((v) =>
      Math.round(Math.min(255, Math.max(0, v)))
        .toString(16)
        .padStart(2, "0"),
    )
    .join("")}`;
}

const NAMED: Record<string, string> = { white: "#ffffff", black: "#000000", transparent: "#ffffff" };

/** `color-mix(in srgb, A p%, B [q%])` for hex colours; anything else is returned untouched. */
function colorMix(expr: string): string {
  const m =
    /^color-mix\(\s*in\s+srgb\s*,\s*([^,]+?)\s*(\d+(?:\.\d+)?)?%?\s*,\s*([^,]+?)\s*(\d+(?:\.\d+)?)?%?\s*\)$/i.exec(
      expr.trim(),
    );
  if (!m) return expr;
  const a = parseHex(NAMED[m[1]?.toLowerCase() ?? ""] ?? m[1] ?? "");
  const b = parseHex(NAMED[m[3]?.toLowerCase() ?? ""] ?? m[3] ?? "");
  if (!a || !b) return expr;
  let p = m[2] !== undefined ? Number(m[2]) / 100 : undefined;
  const q = m[4] !== undefined ? Number(m[4]) / 100 : undefined;
  if (p === undefined) p = q !== undefined ? 1 - q : 0.5;
  return toHex([0, 1, 2].map((i) => (a[i] as number) * p + (b[i] as number) * (1 - p)) as [number, number, number]);
}

/** Find `var(` calls with balanced parentheses and replace them, innermost handled by recursion. */
function substitute(value: string, vars: Map<string, string>, depth = 0): string {
  if (depth > 20) return value;
  let out = "";
  let i = 0;
  while (i < value.length) {
    const at = value.indexOf("var(", i);
    if (at < 0) {
      out += value.slice(i);
      break;
    }
    out += value.slice(i, at);
    let level = 0;
    let j = at + 3;
    for (; j < value.length; j++) {
      if (value[j] === "(") level++;
      else if (value[j] === ")" && --level === 0) break;
    }
    const inner = value.slice(at + 4, j);
    const comma = inner.indexOf(",");
    const name = (comma < 0 ? inner : inner.slice(0, comma)).trim();
    const fallback = comma < 0 ? "" : inner.slice(comma + 1).trim();
    const raw = vars.get(name) ?? fallback;
    out += substitute(raw, vars, depth + 1);
    i = j + 1;
  }
  return colorMix(out.trim()) === out.trim() ? out : colorMix(out.trim());
}

function collect(decls: string, into: Map<string, string>): void {
  for (const m of decls.matchAll(/(--[\w-]+)\s*:\s*([^;]+?)\s*(?:;|$)/g)) into.set(m[1] as string, m[2] as string);
}

export function flattenCssVariables(svg: string): string {
  const vars = new Map<string, string>();
  const rootStyle = /<svg\b[^>]*\sstyle="([^"]*)"/.exec(svg)?.[1];
  if (rootStyle) collect(rootStyle, vars);
  for (const block of svg.matchAll(/<style[^>]*>([\s\S]*?)<\/style>/g)) {
    for (const rule of (block[1] ?? "").matchAll(/(?:^|\})\s*(?:svg|:root)\s*\{([^}]*)\}/g))
      collect(rule[1] ?? "", vars);
  }
  // Resolve every variable once, so later substitutions see final colours.
  const resolved = new Map<string, string>();
  for (const k of vars.keys()) resolved.set(k, substitute(`var(${k})`, vars));
  return svg
    .replace(/@import\s+url\([^)]*\)\s*;?/g, "") // fonts from the web: never fetched here
    .replace(/(fill|stroke|stop-color|color|style|background)="([^"]*var\([^"]*)"/g, (_m, attr: string, v: string) => {
      return `${attr}="${substitute(v, resolved)}"`;
    })
    .replace(/:\s*(var\([^;}\n]*\))/g, (_m, v: string) => `: ${substitute(v, resolved)}`);
}
