import type { AnswerSections, RepairRecord } from "./types.js";

const TAGS = ["node_selection", "design_principle", "workflow"] as const;
type Tag = (typeof TAGS)[number];
const KEY: Record<Tag, keyof AnswerSections> = {
  node_selection: "nodeSelection",
  design_principle: "designPrinciple",
  workflow: "workflow",
};

/** Strict reading: each tag opened and closed, case-insensitive, first match wins (the benchmark's rule). */
export function extractSectionsStrict(text: string): AnswerSections {
  const out: AnswerSections = {};
  for (const tag of TAGS) {
    const m = new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, "i").exec(text);
    if (m) out[KEY[tag]] = m[1]!.trim();
  }
  return out;
}

/**
 * Tolerant reading for the repair path: tags with spaces or attributes (`<workflow lang="json">`),
 * a missing closing tag (the section runs to the next tag or the end), tags inside a code fence.
 * Every deviation from the strict form is recorded.
 */
export function extractSections(text: string): { sections: AnswerSections; repairs: RepairRecord[] } {
  const strict = extractSectionsStrict(text);
  const repairs: RepairRecord[] = [];
  const sections: AnswerSections = { ...strict };
  for (const tag of TAGS) {
    if (sections[KEY[tag]] !== undefined) continue;
    const open = new RegExp(`<\\s*${tag}(\\s[^>]*)?>`, "i").exec(text);
    if (!open) continue;
    const rest = text.slice(open.index + open[0].length);
    const close = new RegExp(`<\\s*/\\s*${tag}\\s*>`, "i").exec(rest);
    const next = /<\s*\/?\s*(node_selection|design_principle|workflow)(\s[^>]*)?>/i.exec(rest);
    const endAt = close ? close.index : next ? next.index : rest.length;
    sections[KEY[tag]] = rest.slice(0, endAt).trim();
    repairs.push({
      kind: "tags",
      detail: close
        ? `<${tag}> tag had extra spacing or attributes`
        : `<${tag}> was not closed; took the text up to ${next ? "the next tag" : "the end"}`,
    });
  }
  return { sections, repairs };
}

/** Remove a surrounding Markdown code fence (```json … ```), also when the closing fence is missing. */
export function stripFences(text: string): { text: string; repaired: boolean } {
  const t = text.trim();
  const m = /^```[a-zA-Z0-9_-]*\s*\n?([\s\S]*?)\n?\s*(```\s*)?$/.exec(t);
  if (m && t.startsWith("```")) return { text: m[1]!.trim(), repaired: true };
  return { text: t, repaired: false };
}
