import { z } from "zod";

/** A selector names a value: `[node_id, output, ...path]`. Reserved heads: sys, env, conversation, rag. */
export const SelectorSchema = z.array(z.string()).min(1);
export type Selector = string[];

export const RESERVED_HEADS = ["sys", "env", "conversation", "rag"] as const;

export function isReservedHead(head: string): boolean {
  return (RESERVED_HEADS as readonly string[]).includes(head);
}

export function formatSelector(sel: readonly string[]): string {
  return sel.join(".");
}

/**
 * Dify's lexical rule for template references: node id of 1–50 `[A-Za-z0-9_]`, then 1–10 segments
 * that start with a letter or `_` and are at most 30 characters. Anything else is literal text.
 */
export const TEMPLATE_REF_SOURCE = String.raw`\{\{#([a-zA-Z0-9_]{1,50}(?:\.[a-zA-Z_][a-zA-Z0-9_]{0,29}){1,10})#\}\}`;

export interface TemplateRef {
  selector: string[];
  raw: string;
  index: number;
}

export function templateRefs(text: string): TemplateRef[] {
  const re = new RegExp(TEMPLATE_REF_SOURCE, "g");
  const out: TemplateRef[] = [];
  for (const m of text.matchAll(re)) {
    out.push({ selector: (m[1] as string).split("."), raw: m[0], index: m.index ?? 0 });
  }
  return out;
}

/**
 * Things that look like references but do not lex as one (a uuid id with dashes, a segment that
 * starts with a digit): Dify silently renders them as text, so the analyser warns about them.
 */
export function malformedTemplateRefs(text: string): string[] {
  const loose = /\{\{#([^#{}]{1,200})#\}\}/g;
  const strict = new RegExp(`^${TEMPLATE_REF_SOURCE}$`);
  const out: string[] = [];
  for (const m of text.matchAll(loose)) {
    if (m[1] === "context") continue;
    if (!strict.test(m[0])) out.push(m[0]);
  }
  return out;
}

/** Replace each well-formed reference by `fn(selector)`; the special `{{#context#}}` is left alone. */
export function replaceTemplateRefs(text: string, fn: (sel: string[], raw: string) => string): string {
  const re = new RegExp(TEMPLATE_REF_SOURCE, "g");
  return text.replace(re, (raw, body: string) => fn(body.split("."), raw));
}
