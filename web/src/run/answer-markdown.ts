import { Marked } from "marked";

/**
 * A chat answer's Markdown as HTML that is safe to insert: raw HTML in the answer is shown as text (model
 * output is hostile input), and links and images keep only web, mail and same-site addresses. Everything
 * else marked writes is escaped by marked itself.
 */
const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

export function safeHref(href: string | null | undefined, kind: "link" | "image"): string | undefined {
  if (!href) return undefined;
  const h = href.trim();
  // Same-site paths (the server's signed file URLs) and fragments; no protocol-relative "//host".
  if ((h.startsWith("/") && !h.startsWith("//")) || h.startsWith("#")) return h;
  try {
    const u = new URL(h);
    if (u.protocol === "https:" || u.protocol === "http:") return u.href;
    if (kind === "link" && u.protocol === "mailto:") return u.href;
    if (kind === "image" && u.protocol === "data:" && /^data:image\/(png|jpe?g|gif|webp);/i.test(h)) return h;
  } catch {
    return undefined;
  }
  return undefined;
}

const marked = new Marked({
  gfm: true,
  breaks: true,
  renderer: {
    html(token) {
      return escapeHtml(token.text);
    },
    link(token) {
      const href = safeHref(token.href, "link");
      const text = this.parser.parseInline(token.tokens);
      if (!href) return text;
      const title = token.title ? ` title="${escapeHtml(token.title)}"` : "";
      return `<a href="${escapeHtml(href)}"${title} target="_blank" rel="noopener noreferrer nofollow">${text}</a>`;
    },
    image(token) {
      const src = safeHref(token.href, "image");
      if (!src) return escapeHtml(token.text || "");
      return `<img src="${escapeHtml(src)}" alt="${escapeHtml(token.text || "")}" loading="lazy" />`;
    },
  },
});

export function answerHtml(markdown: string): string {
  return marked.parse(markdown, { async: false }).trim();
}
