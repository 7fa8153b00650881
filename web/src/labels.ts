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

const SCOPES = new Set(Object.keys(GLOBALS));

/**
 * A field's value for reading in a diff: a selector as "Title / output", text with its references as
 * "{Title / output}", anything else as compact JSON; long values cut.
 */
export function valueText(wf: Workflow | undefined, v: unknown, max = 200): string {
  let s: string;
  if (v === undefined) s = "(none)";
  else if (
    Array.isArray(v) &&
    v.length >= 2 &&
    v.every((x) => typeof x === "string") &&
    (SCOPES.has(v[0] as string) || wf?.nodes.some((n) => n.id === v[0]))
  )
    s = selectorLabel(wf, v as string[]);
  // Only references are rewritten: a bare number in code or prose may equal a node id and must stay as written.
  else if (typeof v === "string") s = readableTemplate(wf, v);
  else s = JSON.stringify(v);
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}
