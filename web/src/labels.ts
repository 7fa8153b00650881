import type { Workflow } from "./types";

/** Human names for what the API identifies by id: nodes by title, selectors as "Title / output". */

const GLOBALS: Record<string, string> = { sys: "System", env: "Environment", conversation: "Conversation" };

export function nodeTitle(wf: Workflow | undefined, id: string | undefined): string {
  if (!id) return "";
  const n = wf?.nodes.find((x) => x.id === id);
  return n?.title || n?.id || id;
}

/** `["1711", "text"]` → "LLM / text"; sys/env/conversation keep their scope name. */
export function selectorLabel(wf: Workflow | undefined, sel: readonly string[]): string {
  if (sel.length === 0) return "";
  const [head, ...rest] = sel;
  const scope = GLOBALS[head!] ?? nodeTitle(wf, head);
  return [scope, rest.join(".")].filter(Boolean).join(" / ");
}

const REF = /\{\{#([^#{}]+?)#\}\}/g;

/** Template text with each `{{#id.var#}}` shown as `{Title / var}`: one-line summaries and previews. */
export function readableTemplate(wf: Workflow | undefined, text: string): string {
  return text.replace(REF, (_, inner: string) => `{${selectorLabel(wf, inner.split("."))}}`);
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * Analyser and engine messages name nodes by id (often 13-digit timestamps); people know them by title.
 * Only whole tokens that are node ids are replaced, so ordinary words and numbers stay as written.
 */
export function humanize(wf: Workflow | undefined, message: string): string {
  if (!wf) return message;
  const named = wf.nodes.filter((n) => n.title && n.title !== n.id);
  if (named.length === 0) return message;
  const byId = new Map(named.map((n) => [n.id, n.title]));
  const ids = [...byId.keys()].sort((a, b) => b.length - a.length).map(escapeRe);
  const re = new RegExp(`(^|[^\\w-])"?(${ids.join("|")})"?(?=$|[^\\w-])`, "g");
  return message.replace(re, (_, pre: string, id: string) => `${pre}"${byId.get(id)}"`);
}
