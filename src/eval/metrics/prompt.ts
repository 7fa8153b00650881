import { readFileSync } from "node:fs";
import { MetricCodes, MetricInputError } from "./errors.js";

const cache = new Map<string, string>();

/** Reads src/eval/prompts/<name>.md (kept as files so prompts are reviewed and versioned like code). */
export function loadPrompt(name: "es-judge" | "resolve-judge"): string {
  let t = cache.get(name);
  if (t === undefined) {
    t = readFileSync(new URL(`../prompts/${name}.md`, import.meta.url), "utf8");
    cache.set(name, t);
  }
  return t;
}

/** Single-pass `{{key}}` substitution: values are inserted verbatim and never re-expanded. */
export function renderTemplate(template: string, vars: Record<string, string>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (_, k: string) => {
    const v = vars[k];
    if (v === undefined)
      throw new MetricInputError(MetricCodes.invalidArgument, `prompt variable {{${k}}} has no value`, { field: k });
    return v;
  });
}
