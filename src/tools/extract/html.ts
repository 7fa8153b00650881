import { type HTMLElement, parse } from "node-html-parser";
import { assertDepth } from "./depth.js";
import { DEFAULT_EXTRACT_LIMITS, type ExtractLimits } from "./limits.js";
import { markdownTable } from "./text.js";

const DROP = "script, style, noscript, template, head";

function tableRows(table: HTMLElement): string[][] {
  return table.querySelectorAll("tr").map((tr) => tr.querySelectorAll("th, td").map((c) => c.structuredText.trim()));
}

/**
 * Visible text of an HTML document: scripts and styles dropped, block elements on their own lines,
 * tables as markdown tables (so an LLM downstream still sees the grid). Nesting deeper than the
 * limit is refused first (document.too_complex): the tree walks below recurse per level.
 */
export function htmlToText(
  html: string,
  limits: Pick<ExtractLimits, "maxDepth"> = DEFAULT_EXTRACT_LIMITS,
  what = "HTML file",
): string {
  assertDepth(html, limits.maxDepth, what);
  const root = parse(html, { comment: false, blockTextElements: { script: true, style: true, pre: true } });
  for (const el of root.querySelectorAll(DROP)) el.remove();
  for (const table of root.querySelectorAll("table")) {
    if (table.querySelector("table")) continue; // nested tables: keep the inner text as is
    const md = markdownTable(tableRows(table));
    table.replaceWith(parse(`<pre>${escapeHtml(md)}</pre>`));
  }
  for (const list of root.querySelectorAll("ul, ol")) {
    const ordered = list.tagName === "OL";
    let n = Number(list.getAttribute("start") ?? 1) || 1;
    for (const li of list.childNodes) {
      if ((li as HTMLElement).tagName !== "LI") continue;
      (li as HTMLElement).insertAdjacentHTML("afterbegin", ordered ? `${n++}. ` : "- ");
    }
  }
  return root.structuredText.replace(/\n{3,}/g, "\n\n").trim();
}

function escapeHtml(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}
